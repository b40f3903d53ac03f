// The web app's one layout: the skip link, the bar with the pages (src/web/nav.ts) and who is
// signed in, the page, and the scripts it names (ES modules from /assets, no inline script:
// the CSP is `script-src 'self'`). The CSRF token the scripts send is in a meta element.
import { html, type Html } from '../lib/html.ts';
import { assetUrl } from './assets.ts';
import { NAV } from './nav.ts';
import type { Viewer } from './page.ts';

export interface Layout {
  title: string;
  body: Html;
  /** Signed in: the bar shows the pages and the sign-out button. */
  viewer?: Viewer | undefined;
  /** The CSRF token of this browser (signed in). */
  csrf?: string | undefined;
  /** The nav entry to mark as the current page. */
  current?: string | undefined;
  /** The paths of the pages that exist (only those appear in the bar). */
  pages?: ReadonlySet<string>;
  /** Asset names of the page's own ES modules. */
  scripts?: readonly string[];
  /** Asset names of extra stylesheets (e.g. a vendor's). */
  styles?: readonly string[];
  narrow?: boolean;
  /** Extra elements for <head> (feeds, OpenGraph). */
  head?: Html;
}

function bar(layout: Layout): Html {
  const { viewer, csrf, current, pages } = layout;
  if (!viewer) {
    return html`<div class="bar">
      <a class="brand" href="/">Waypost</a>
      <nav class="who" aria-label="Account"><a href="/account">Sign in</a></nav>
    </div>`;
  }
  const entries = NAV.filter((entry) => entry.always || pages?.has(entry.path));
  const here = entries.find((entry) => entry.path === current);
  // The pages sit in a disclosure (a <details>, so it opens by keyboard and without a script):
  // on a phone a "Menu" button that names the current page and opens every entry at once; from
  // 60rem on the stylesheet shows the entries in the bar and hides the button (app.css).
  return html`<div class="bar">
    <a class="brand" href="/">Waypost</a>
    <details class="menu">
      <summary>
        <span class="menu-icon" aria-hidden="true"></span> Menu${
          here
            ? html`<span class="menu-here"><span class="visually-hidden">, this page:</span> ${here.label}</span>`
            : ''
        }
      </summary>
      <nav class="site-nav" aria-label="Pages">
        <ul>
          ${entries.map(
            (entry) =>
              html`<li>
                <a href="${entry.path}" ${entry.path === current ? html`aria-current="page"` : ''}>${entry.label}</a>
              </li>`,
          )}
        </ul>
      </nav>
    </details>
    <div class="who">
      <span>Signed in as <strong>${viewer.username}</strong></span>
      <form method="post" action="/account/sign-out">
        <input type="hidden" name="csrf" value="${csrf ?? ''}" />
        <button type="submit" class="secondary">Sign out</button>
      </form>
    </div>
  </div>`;
}

export function layout(options: Layout): string {
  // app.js is linked by its plain URL, the one the pages' modules import it by (`./app.js`), so
  // the browser runs it once; it is revalidated (ETag) rather than cached for good.
  const shared = options.viewer ? html`<script type="module" src="/assets/app.js"></script>` : '';
  const scripts = options.scripts ?? [];
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <title>${options.title} · Waypost</title>
        ${options.csrf ? html`<meta name="csrf-token" content="${options.csrf}" />` : ''}
        <link rel="icon" href="${assetUrl('favicon.svg')}" type="image/svg+xml" />
        <link rel="stylesheet" href="${assetUrl('app.css')}" />
        ${(options.styles ?? []).map((name) => html`<link rel="stylesheet" href="${assetUrl(name)}" />`)} ${shared}
        ${scripts.map((name) => html`<script type="module" src="${assetUrl(name)}"></script>`)} ${options.head ?? ''}
      </head>
      <body>
        <a class="skip-link" href="#main">Skip to content</a>
        <header class="site-header">${bar(options)}</header>
        <main id="main" tabindex="-1" class="${options.narrow ? 'narrow' : ''}">${options.body}</main>
        <footer class="site-footer">
          <a href="/">Waypost</a> · <a href="/docs">API docs</a> · <a href="/info">Server info</a>
        </footer>
      </body>
    </html>`.value;
}
