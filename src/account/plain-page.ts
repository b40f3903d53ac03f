// The plain page the sign-in, consent and setup pages use: the site bar, one narrow column and
// the footer (the web app's pages have their layout in src/web/layout.ts).
import { html, type Html } from '../lib/html.ts';

export function page(title: string, body: Html): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · Waypost</title>
        <link rel="icon" href="/assets/favicon.svg" type="image/svg+xml" />
        <link rel="stylesheet" href="/assets/app.css" />
      </head>
      <body>
        <a class="skip-link" href="#main">Skip to content</a>
        <header class="site-header">
          <div class="bar"><a class="brand" href="/">Waypost</a></div>
        </header>
        <main id="main" class="narrow" tabindex="-1">${body}</main>
        <footer class="site-footer">
          <a href="/">Waypost</a> · <a href="/docs">API docs</a> · <a href="/info">Server info</a>
        </footer>
      </body>
    </html> `.value;
}
