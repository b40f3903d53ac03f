// Server-rendered pages, small and without scripts. Every interpolated value is escaped
// unless it is already Html, so no page echoes unescaped input.

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export class Html {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
  toString(): string {
    return this.value;
  }
}

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
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

const STYLE = `
body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b;background:#fdfdfb}
h1{font-size:1.6rem}a{color:#0b57a4}code{background:#eef;padding:0 .25em}
label{display:block;margin-top:1rem;font-weight:600}input{font:inherit;padding:.4rem;width:100%;box-sizing:border-box}
button{font:inherit;margin-top:1.25rem;padding:.5rem 1.2rem}.error{color:#a40b0b;border-left:4px solid #a40b0b;padding-left:.75rem}
footer{margin-top:3rem;color:#555;font-size:.9rem}`;

export function page(title: string, body: Html): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · Waypost</title>
        <style>
          ${new Html(STYLE)}
        </style>
      </head>
      <body>
        <main>${body}</main>
        <footer><a href="/">Waypost</a> · <a href="/docs">API docs</a> · <a href="/info">Server info</a></footer>
      </body>
    </html> `.value;
}
