// @ts-check
// What every signed-in page's scripts share: calling the JSON API with the session and the
// page's CSRF token (docs/oauth.md "The web app's own access"), readable errors beside the
// fields, delete buttons with a confirmation, and forms sent as JSON.

/** @typedef {import('../../http/schemas.ts').Problem} Problem */
/**
 * A form's named element: the pages name only inputs, selects and text areas.
 * @typedef {HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement} Field
 */

const csrf = document.querySelector('meta[name="csrf-token"]')?.getAttribute('content') ?? '';

/** An answer outside 2xx, with the problem document it carried (src/http/errors.ts writes them). */
export class ApiError extends Error {
  /**
   * @param {number} status the HTTP status; 0 when the request never reached the server
   * @param {Partial<Problem> | undefined} problem the answer's problem+json body, or what the page knows instead
   */
  constructor(status, problem) {
    super(problem?.detail || `The server answered ${status}.`);
    this.status = status;
    this.problem = problem;
  }
}

/**
 * Calls the API as the signed-in person. `body` is sent as JSON unless it is FormData. The caller
 * says what a 2xx answer holds, by the type of the route's schema, in a JSDoc type on the result
 * (`{ data: Post }`; `null` for a 204): where a page takes the server's JSON on trust.
 * @template [T=unknown]
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @returns {Promise<{ data: T, response: Response }>}
 */
export async function api(method, path, body) {
  /** @type {Record<string, string>} */
  const headers = { accept: 'application/json' };
  if (method !== 'GET' && method !== 'HEAD') headers['x-csrf-token'] = csrf;
  let payload;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const response = await fetch(path, { method, headers, body: payload, credentials: 'same-origin' });
  if (response.status === 204) return { data: /** @type {T} */ (null), response };
  const type = response.headers.get('content-type') ?? '';
  const data = type.includes('json') ? await response.json() : await response.text();
  if (!response.ok) throw new ApiError(response.status, typeof data === 'object' ? data : undefined);
  return { data, response };
}

/**
 * Uploads a file with progress (fetch has no upload progress; XMLHttpRequest does). The caller
 * names the answer's schema type, as with api().
 * @template T
 * @param {string} path
 * @param {FormData} formData
 * @param {(fraction: number) => void} onProgress
 * @returns {Promise<T>}
 */
export function upload(path, formData, onProgress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', path);
    xhr.setRequestHeader('x-csrf-token', csrf);
    xhr.setRequestHeader('accept', 'application/json');
    xhr.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    });
    xhr.addEventListener('load', () => {
      let data;
      try {
        data = JSON.parse(xhr.responseText);
      } catch {
        data = undefined;
      }
      if (xhr.status >= 200 && xhr.status < 300) resolve(data);
      else reject(new ApiError(xhr.status, data));
    });
    xhr.addEventListener('error', () => reject(new ApiError(0, { detail: 'The upload failed: no connection.' })));
    xhr.send(formData);
  });
}

/**
 * Removes the messages an earlier attempt left in the form.
 * @param {HTMLFormElement} form
 */
export function clearErrors(form) {
  for (const node of form.querySelectorAll('.field-error, .form-error')) node.remove();
  for (const field of form.querySelectorAll('[aria-invalid]')) {
    field.removeAttribute('aria-invalid');
    const described = (field.getAttribute('aria-describedby') ?? '')
      .split(' ')
      .filter((id) => id && !id.endsWith('-error'));
    if (described.length) field.setAttribute('aria-describedby', described.join(' '));
    else field.removeAttribute('aria-describedby');
  }
}

/**
 * Field name for an error path such as `/default_scopes/posts`, `body/config/url` or `text`.
 * @param {string} path
 */
function fieldName(path) {
  const parts = String(path ?? '')
    .replace(/^\/?(body\/)?/, '')
    .split(/[/.]/)
    .filter(Boolean);
  return parts.join('.');
}

/**
 * Shows an API error beside the field it names, or at the top of the form.
 * @param {HTMLFormElement} form
 * @param {unknown} error what the attempt threw
 */
export function showError(form, error) {
  clearErrors(form);
  const problem = error instanceof ApiError ? error.problem : undefined;
  let placed = false;
  for (const item of problem?.errors ?? []) {
    const name = fieldName(item.path);
    /** @type {Field | null} */
    const field =
      form.querySelector(`[name="${CSS.escape(name)}"]`) ??
      form.querySelector(`[name="${CSS.escape(name.split('.').pop() ?? '')}"]`);
    if (!field) continue;
    const id = `${field.id || field.name.replace(/\W/g, '-')}-error`;
    const message = document.createElement('span');
    message.className = 'field-error';
    message.id = id;
    message.textContent = item.message;
    field.setAttribute('aria-invalid', 'true');
    field.setAttribute('aria-describedby', `${field.getAttribute('aria-describedby') ?? ''} ${id}`.trim());
    (field.closest('label') ?? field).insertAdjacentElement('afterend', message);
    placed = true;
  }
  if (!placed) {
    const message = document.createElement('p');
    message.className = 'error form-error';
    message.setAttribute('role', 'alert');
    message.textContent = (error instanceof Error && error.message) || 'Something went wrong.';
    form.prepend(message);
  } else {
    /** @type {Field | null} */ (form.querySelector('[aria-invalid]'))?.focus();
  }
}

/**
 * A short message after the form, read out by screen readers.
 * @param {HTMLFormElement} form
 * @param {string} text
 */
export function announce(form, text) {
  let status = form.querySelector('.notice[role="status"]');
  if (!status) {
    status = document.createElement('p');
    status.className = 'notice';
    status.setAttribute('role', 'status');
    form.append(status);
  }
  status.textContent = text;
}

// Delete buttons, made by deleteButton() (src/web/buttons.html.ts): <button data-delete="/posts/id/…"
// data-confirm="…">; the element marked data-item around it goes when the server says it is gone.
document.addEventListener('click', async (event) => {
  const button = event.target instanceof Element ? event.target.closest('button[data-delete]') : null;
  if (!(button instanceof HTMLButtonElement)) return;
  event.preventDefault();
  if (!window.confirm(button.dataset.confirm || 'Delete this for good?')) return;
  button.disabled = true;
  try {
    await api('DELETE', /** @type {string} the selector asked for data-delete */ (button.dataset.delete));
    const item = button.closest('[data-item]');
    if (button.dataset.then) window.location.assign(button.dataset.then);
    else if (item) item.remove();
  } catch (error) {
    button.disabled = false;
    window.alert(error instanceof Error ? error.message : String(error));
  }
});

/**
 * The instant, in Unix epoch seconds, of a wall-clock time `YYYY-MM-DDTHH:MM` (a datetime-local
 * input's value) in an IANA time zone; NaN when the text is no such time. The wall time read as
 * UTC, less the zone's offset there, asked of Intl a second time at the first answer, so a change
 * of the clocks between the two is caught (the server's zonedToUtc does the same).
 * @param {string} text
 * @param {string} zone
 */
export function zonedSeconds(text, zone) {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(text);
  if (!match) return NaN;
  const [year, month, day, hour, minute, second] = match.slice(1).map((part) => Number(part ?? 0));
  const wall = Date.UTC(Number(year), Number(month) - 1, day, hour, minute, second);
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  });
  /** @param {number} ms */
  const offsetAt = (ms) => {
    /** @type {Record<string, number>} */
    const parts = {};
    for (const part of format.formatToParts(ms)) parts[part.type] = Number(part.value);
    const { year: y = 0, month: m = 1, day: d = 1, hour: h = 0, minute: mi = 0, second: s = 0 } = parts;
    return Date.UTC(y, m - 1, d, h, mi, s) - Math.floor(ms / 1000) * 1000;
  };
  return (wall - offsetAt(wall - offsetAt(wall))) / 1000;
}

/**
 * Collects a form's fields as JSON: names with dots nest; data-type="number|boolean|list|json"
 * converts, "local-time" turns a datetime-local value into epoch seconds in the zone its
 * data-zone names, "optional" leaves an empty field out; data-empty="null" sends an emptied field
 * as null.
 * @param {HTMLFormElement} form
 * @returns {Record<string, unknown>}
 */
export function formJson(form) {
  /** @type {Record<string, any>} the JSON being built, nested as the names say */
  const out = {};
  // Read as inputs: the other named controls (selects, text areas, buttons) have the same name,
  // value, type and dataset, and no `checked` (undefined).
  for (const field of /** @type {Iterable<HTMLInputElement>} */ (form.elements)) {
    if (!field.name || field.disabled || field.type === 'submit' || field.dataset.skip !== undefined) continue;
    if ((field.type === 'radio' || field.type === 'checkbox') && field.dataset.type !== 'boolean' && !field.checked)
      continue;
    /** @type {string | number | boolean | object | null} a JSON value */
    let value = field.value;
    const type = field.dataset.type;
    if (value === '' && field.dataset.empty === 'null') value = null;
    else if (type === 'boolean') value = field.checked;
    else if (type === 'json') value = JSON.parse(value);
    else if (type === 'local-time') value = zonedSeconds(value, field.dataset.zone ?? 'UTC');
    else if (type === 'number') {
      if (value === '') continue;
      value = Number(value);
    } else if (type === 'optional' && value === '') continue;
    const path = field.name.split('.');
    let target = out;
    for (const key of path.slice(0, -1)) target = target[key] ??= {};
    const key = /** @type {string} split gives one part at least */ (path[path.length - 1]);
    if (type === 'list') (target[key] ??= []).push(value);
    else target[key] = value;
  }
  return out;
}

// Forms sent to the API as JSON: <form data-api="POST /settings" data-done="reload|event|Saved.">.
// "event": the page's own module takes the answer, from an `api:done` event on the form (its
// `detail` the answer's JSON).
document.addEventListener('submit', async (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || !form.dataset.api) return;
  event.preventDefault();
  const [method, path] = /** @type {[string, string]} "METHOD /path" */ (form.dataset.api.split(' '));
  const button = form.querySelector('button[type="submit"], button:not([type])');
  if (button instanceof HTMLButtonElement) button.disabled = true;
  clearErrors(form);
  try {
    const body = formJson(form);
    if (form.dataset.list) for (const name of form.dataset.list.split(' ')) body[name] ??= [];
    const { data } = await api(method, path, body);
    const done = form.dataset.done ?? 'reload';
    if (done === 'reload') window.location.reload();
    else if (done === 'event') form.dispatchEvent(new CustomEvent('api:done', { detail: data, bubbles: true }));
    else announce(form, done);
  } catch (error) {
    showError(form, error);
  } finally {
    if (button instanceof HTMLButtonElement) button.disabled = false;
  }
});

// Copy buttons beside a value (<button data-copy-from="<id of the element holding it>"
// data-what="Token">), with a `.copy-status` beside them. Without a script, or when the clipboard
// is refused, the value stays selectable.
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

// The phone menu (a <details> in the bar, src/web/layout.ts) closes with Escape, as a menu
// button's list does, and gives the focus back to its button.
const menu = document.querySelector('details.menu');
if (menu instanceof HTMLDetailsElement) {
  menu.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape' || !menu.open) return;
    menu.open = false;
    menu.querySelector('summary')?.focus();
  });
}
