// @ts-check
// Trackers: the Copy buttons beside an ingest URL and a token (docs/trackers.md "The tracker
// page"). Without a script, or when the clipboard is refused, the value stays selectable.
document.addEventListener('click', async (event) => {
  const button = event.target instanceof Element ? event.target.closest('button[data-copy-from]') : null;
  if (!(button instanceof HTMLButtonElement)) return;
  const source = document.getElementById(/** @type {string} the selector asked for it */ (button.dataset.copyFrom));
  const status = button.parentElement?.querySelector('.copy-status');
  if (!source || !status) return;
  const what = button.dataset.what ?? 'It';
  try {
    await navigator.clipboard.writeText(source.textContent ?? '');
    status.textContent = `${what} copied.`;
  } catch {
    const range = document.createRange();
    range.selectNodeContents(source);
    window.getSelection()?.removeAllRanges();
    window.getSelection()?.addRange(range);
    status.textContent = `${what} is selected: copy it.`;
  }
});
// Copy buttons need the script: shown once it runs.
for (const button of document.querySelectorAll('button[data-copy-from][hidden]')) button.removeAttribute('hidden');
