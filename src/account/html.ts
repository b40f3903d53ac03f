// Server-rendered pages: the html`` template and the plain page the sign-in, consent and setup
// pages use (the web app's pages have their layout in src/web/layout.ts). Styles come from the
// one stylesheet (src/web/assets/app.css), never inline, so the CSP needs no 'unsafe-inline'. Every interpolated value is escaped
// unless it is already Html, so no page echoes unescaped input.

import { escapeHtml } from '../lib/html.ts';

export { escapeHtml };

export class Html {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
  toString(): string {
    return this.value;
  }
}

type Interpolation = Html | string | number | undefined | null | false | readonly Interpolation[];

function render(value: Interpolation): string {
  if (value === undefined || value === null || value === false) return '';
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/** Tagged template: `html\`<p>${text}</p>\`` escapes `text`. */
export function html(strings: TemplateStringsArray, ...values: Interpolation[]): Html {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return new Html(out);
}

export function page(title: string, body: Html): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · Waypost</title>
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
