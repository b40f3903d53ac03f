// @ts-check
// Timeline: "load more" appends the next page in place; scope buttons change a post's scope.
import { api } from './app.js';

document.addEventListener('click', async (event) => {
  const target = event.target instanceof Element ? event.target : null;
  const more = target?.closest('a[data-more]');
  if (more instanceof HTMLAnchorElement) {
    event.preventDefault();
    more.setAttribute('aria-busy', 'true');
    const response = await fetch(more.href, { credentials: 'same-origin' });
    const page = new DOMParser().parseFromString(await response.text(), 'text/html');
    // The page shows the days whenever it links to more.
    const days = /** @type {Element} */ (document.querySelector('.timeline-days'));
    for (const section of /** @type {NodeListOf<HTMLElement>} */ (
      page.querySelectorAll('.timeline-days > section.day')
    )) {
      const last = days.querySelector('section.day:last-of-type');
      if (last instanceof HTMLElement && last.dataset.day === section.dataset.day) {
        for (const item of section.querySelectorAll('article')) last.append(item);
      } else days.append(section);
    }
    const next = page.querySelector('a[data-more]');
    if (next instanceof HTMLAnchorElement) more.href = next.href;
    else more.closest('.load-more')?.remove();
    more.removeAttribute('aria-busy');
    return;
  }
  const change = target?.closest('button[data-change]');
  if (change instanceof HTMLButtonElement) {
    change.disabled = true;
    try {
      await api('POST', /** @type {string} the selector asked for data-change */ (change.dataset.change), {
        scope: change.dataset.scope,
      });
      window.location.reload();
    } catch (error) {
      change.disabled = false;
      window.alert(error instanceof Error ? error.message : String(error));
    }
  }
});
