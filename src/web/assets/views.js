// @ts-check
// Views: copying a public view's link.
document.addEventListener('click', async (event) => {
  const button = event.target instanceof Element ? event.target.closest('button[data-copy]') : null;
  if (!(button instanceof HTMLButtonElement)) return;
  const status = button.closest('[data-item]')?.querySelector('.copy-status');
  if (!status) return;
  try {
    await navigator.clipboard.writeText(/** @type {string} the selector asked for data-copy */ (button.dataset.copy));
    status.textContent = 'Link copied.';
  } catch {
    /** @type {HTMLInputElement | null | undefined} */ (
      button.closest('[data-item]')?.querySelector('input[readonly]')
    )?.select();
    status.textContent = 'Select the link and copy it.';
  }
});
