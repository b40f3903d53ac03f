// Views: copying a public view's link.
document.addEventListener('click', async (event) => {
  const button = event.target instanceof Element ? event.target.closest('button[data-copy]') : null;
  if (!button) return;
  const status = button.closest('[data-item]').querySelector('.copy-status');
  try {
    await navigator.clipboard.writeText(button.dataset.copy);
    status.textContent = 'Link copied.';
  } catch {
    button.closest('[data-item]').querySelector('input[readonly]')?.select();
    status.textContent = 'Select the link and copy it.';
  }
});
