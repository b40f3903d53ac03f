// @ts-check
// The media viewers (src/web/viewer.html.ts): the arrow keys and a swipe on the picture follow
// the page's Previous and Next links. Keys typed into a field (the caption) stay the field's, and
// a key with a modifier stays the browser's (Alt+← is "back").

/** @param {'prev' | 'next'} which */
function go(which) {
  const link = document.querySelector(which === 'prev' ? 'a[data-viewer-prev]' : 'a[data-viewer-next]');
  if (link instanceof HTMLAnchorElement) window.location.assign(link.href);
}

document.addEventListener('keydown', (event) => {
  if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
  const target = event.target;
  if (
    target instanceof HTMLInputElement ||
    target instanceof HTMLTextAreaElement ||
    target instanceof HTMLSelectElement ||
    (target instanceof HTMLElement && target.isContentEditable) ||
    // A player's own controls take the arrows to seek and to change the volume.
    target instanceof HTMLMediaElement
  ) {
    return;
  }
  if (event.key === 'ArrowLeft') go('prev');
  else if (event.key === 'ArrowRight') go('next');
  else return;
  event.preventDefault();
});

// A swipe: a touch that moves mostly sideways by at least 50 CSS pixels. Right to left is the next.
const picture = document.querySelector('.viewer');
if (picture instanceof HTMLElement) {
  /** @type {{ x: number, y: number } | undefined} */
  let start;
  picture.addEventListener(
    'touchstart',
    (event) => {
      const touch = event.touches[0];
      start = event.touches.length === 1 && touch ? { x: touch.clientX, y: touch.clientY } : undefined;
    },
    { passive: true },
  );
  picture.addEventListener('touchend', (event) => {
    const touch = event.changedTouches[0];
    if (!start || !touch) return;
    const dx = touch.clientX - start.x;
    const dy = touch.clientY - start.y;
    start = undefined;
    if (Math.abs(dx) < 50 || Math.abs(dx) < 2 * Math.abs(dy)) return;
    go(dx < 0 ? 'next' : 'prev');
  });
}
