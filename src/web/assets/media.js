// @ts-check
// Media: "load more" appends the next page of thumbnails in place, following the link the page
// built from the collections' Link headers (as the timeline does); without scripts it is a link.
document.addEventListener('click', async (event) => {
  const more = event.target instanceof Element ? event.target.closest('a[data-more]') : null;
  if (!(more instanceof HTMLAnchorElement)) return;
  event.preventDefault();
  more.setAttribute('aria-busy', 'true');
  try {
    const response = await fetch(more.href, { credentials: 'same-origin' });
    const page = new DOMParser().parseFromString(await response.text(), 'text/html');
    // The page shows a grid whenever it links to more (src/web/media.page.ts).
    const grid = /** @type {HTMLUListElement} */ (document.querySelector('ul.grid'));
    const added = [...page.querySelectorAll('ul.grid > li')];
    for (const item of added) grid.append(item);
    // Keyboard and screen reader users land on the first new thumbnail.
    added[0]?.querySelector('a')?.focus();
    const next = page.querySelector('a[data-more]');
    if (next instanceof HTMLAnchorElement) more.href = next.href;
    else more.closest('.load-more')?.remove();
  } catch {
    window.location.assign(more.href);
  } finally {
    more.removeAttribute('aria-busy');
  }
});
