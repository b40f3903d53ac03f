// @ts-check
// Imports (src/web/imports.page.ts): a file picked or dropped is uploaded to POST /imports with a
// progress bar (XMLHttpRequest: fetch has no upload progress), can be stopped, and is sent again
// whole by "Try again" after it broke off or was stopped; leaving the page while it runs asks
// first; each import queued or running is followed by polling
// GET /imports/<id> until it ends. Cancel and Undo are app.js's delete buttons.
import { ApiError, api, clearErrors, showError } from './app.js';

/** @typedef {import('../../imports/imports.schemas.ts').Import} Import */

// The elements the page always renders.
const form = /** @type {HTMLFormElement} */ (document.getElementById('import-form'));
const input = /** @type {HTMLInputElement} */ (document.getElementById('import-file'));
const zone = /** @type {HTMLElement} */ (document.getElementById('drop-zone'));
const box = /** @type {HTMLElement} */ (document.getElementById('upload'));
const bar = /** @type {HTMLProgressElement} */ (document.getElementById('upload-progress'));
const status = /** @type {HTMLElement} */ (document.getElementById('upload-status'));
const stop = /** @type {HTMLButtonElement} */ (document.getElementById('upload-cancel'));
const retry = /** @type {HTMLButtonElement} */ (document.getElementById('upload-retry'));
const submit = /** @type {HTMLButtonElement} */ (document.getElementById('import-button'));
const list = /** @type {HTMLUListElement} */ (document.getElementById('imports'));
const empty = /** @type {HTMLElement} */ (document.getElementById('imports-empty'));
const limit = Number(form.dataset.limit);
const timeZone = form.dataset.zone || 'UTC';
/** @type {Record<string, string>} the format names as the page's select shows them */
const formatLabels = Object.fromEntries(
  [.../** @type {HTMLSelectElement} */ (document.getElementById('import-format')).options].map((o) => [
    o.value,
    o.textContent?.trim() ?? o.value,
  ]),
);

/** @type {XMLHttpRequest | undefined} the upload under way */
let current;

/** @param {number} n */
const number = (n) => n.toLocaleString('en-GB');
/**
 * @param {number} n
 * @param {string} one
 * @param {string} many
 */
const plural = (n, one, many) => `${number(n)} ${n === 1 ? one : many}`;
/** @param {number} seconds */
const when = (seconds) =>
  new Date(seconds * 1000).toLocaleString('en-GB', { timeZone, dateStyle: 'medium', timeStyle: 'short' });
/** @param {number} bytes as byteSize() of the page */
function byteSize(bytes) {
  if (bytes >= 1024 ** 3 && bytes % 1024 ** 3 === 0) return `${bytes / 1024 ** 3} GiB`;
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(1)} GB`;
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(1)} MB`;
  if (bytes >= 1e3) return `${(bytes / 1e3).toFixed(1)} kB`;
  return `${bytes} bytes`;
}

/** @type {Record<Import['status'], string>} */
const STATUS = {
  queued: 'Waiting to start',
  running: 'Running',
  done: 'Done',
  failed: 'Failed',
  cancelled: 'Being undone',
};
/** @type {Record<string, string>} */
const KINDS = {
  settings: 'Settings',
  services: 'Services',
  groups: 'Groups',
  views: 'Views',
  places: 'Places',
  visit_corrections: 'Corrections of visits',
  media: 'Media',
  posts: 'Posts',
};

/** @param {Import} imp as undoQuestion() of the page */
function undoQuestion(imp) {
  const points = plural(imp.points_stored, 'point', 'points');
  if (imp.status === 'queued' || imp.status === 'running') {
    return `Cancel the import of ${imp.filename}? The ${points} it stored so far will be deleted.`;
  }
  const restore = imp.format === 'waypost-export' ? ' Restored posts, media, services and settings stay.' : '';
  return `Undo the import of ${imp.filename}? The ${points} it stored will be deleted; points that were already here stay.${restore}`;
}

/**
 * @param {string} tag
 * @param {string} [className]
 * @param {string} [text]
 */
function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/**
 * Fills a card with an import, as importCard() of the page renders it.
 * @param {HTMLElement} card
 * @param {Import} imp
 */
function render(card, imp) {
  const running = imp.status === 'queued' || imp.status === 'running';
  card.dataset.status = imp.status;
  // An open list of problems stays open as it grows.
  const open = card.querySelector('details')?.open ?? false;
  const parts = [];
  parts.push(el('h3', '', imp.filename));
  parts.push(
    el(
      'p',
      'meta',
      `${formatLabels[imp.format] ?? imp.format} · ${byteSize(imp.size)} · uploaded ${when(imp.created_at)}`,
    ),
  );
  const state = el('p');
  state.append(el('span', `import-status status-${imp.status}`, STATUS[imp.status]));
  if (imp.finished_at !== null) state.append(el('span', 'meta', ` at ${when(imp.finished_at)}`));
  parts.push(state);
  if (running) {
    const progress = /** @type {HTMLProgressElement} */ (el('progress'));
    progress.max = 1;
    progress.value = imp.progress;
    progress.setAttribute('aria-label', `Progress of ${imp.filename}`);
    parts.push(progress);
  }
  const counters = el('dl', 'counters');
  for (const [label, value] of /** @type {[string, number][]} */ ([
    ['Points stored', imp.points_stored],
    ['Duplicates', imp.duplicates],
    ['Skipped', imp.skipped],
    ['Problems', imp.errors.length],
  ])) {
    const pair = el('div');
    pair.append(el('dt', '', label), el('dd', '', number(value)));
    counters.append(pair);
  }
  parts.push(counters);
  if (imp.items) {
    parts.push(el('p', 'help', 'Restored:'));
    const restored = el('ul', 'restored');
    for (const [key, label] of Object.entries(KINDS)) {
      const counts = imp.items[/** @type {keyof typeof imp.items} */ (key)];
      restored.append(
        el(
          'li',
          '',
          `${label}: ${number(counts.stored)} restored, ${number(counts.duplicates)} already here, ${number(counts.skipped)} not restored`,
        ),
      );
    }
    parts.push(restored);
  }
  if (imp.errors.length > 0) {
    const details = /** @type {HTMLDetailsElement} */ (el('details', 'import-errors'));
    details.open = open;
    details.append(
      el(
        'summary',
        '',
        `${plural(imp.errors.length, 'problem', 'problems')}${imp.errors.length >= 100 ? ' (the first 100)' : ''}`,
      ),
    );
    const problems = el('ol');
    for (const problem of imp.errors) {
      const item = el('li');
      item.append(el('strong', '', problem.where), `: ${problem.message}`);
      problems.append(item);
    }
    details.append(problems);
    parts.push(details);
  }
  if (imp.status !== 'cancelled') {
    // app.js sends the DELETE after asking, and removes the card (data-item) once it is done.
    const button = /** @type {HTMLButtonElement} */ (el('button', 'danger small', running ? 'Cancel' : 'Undo'));
    button.type = 'button';
    button.dataset.delete = `/imports/${imp.id}`;
    button.dataset.confirm = undoQuestion(imp);
    button.append(el('span', 'visually-hidden', ` the import of ${imp.filename}`));
    parts.push(button);
  }
  card.replaceChildren(...parts);
}

/**
 * Polls one import until it ends, redrawing its card; stops when the card is gone (undone).
 * @param {string} id
 */
async function follow(id) {
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const card = list.querySelector(`[data-import="${CSS.escape(id)}"]`);
    if (!(card instanceof HTMLElement)) return;
    try {
      /** @type {{ data: Import }} */
      const { data } = await api('GET', `/imports/${id}`);
      // The card may have gone while the answer came (Cancel).
      if (!card.isConnected) return;
      render(card, data);
      if (data.status !== 'queued' && data.status !== 'running') return;
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) {
        card.remove();
        return;
      }
    }
  }
}

/** @param {Import} imp */
function addCard(imp) {
  const card = el('li', 'card import');
  card.dataset.item = '';
  card.dataset.import = imp.id;
  render(card, imp);
  list.prepend(card);
  empty.hidden = true;
  void follow(imp.id);
}

/** @param {string} text */
function say(text) {
  status.textContent = text;
}

/**
 * Sends the file; the answer is the import, or a problem shown beside the form with Try again.
 * @param {File} file
 */
function send(file) {
  clearErrors(form);
  if (file.size > limit) {
    showError(
      form,
      new ApiError(413, {
        detail: `${file.name} is ${byteSize(file.size)}; this server takes files up to ${byteSize(limit)}.`,
      }),
    );
    return;
  }
  const data = new FormData();
  const format = /** @type {HTMLSelectElement} */ (form.elements.namedItem('format')).value;
  if (format) data.append('format', format);
  const scope = /** @type {HTMLInputElement | null} */ (form.querySelector('input[name="scope"]:checked'))?.value;
  if (scope) data.append('scope', scope);
  data.append('file', file);
  const xhr = new XMLHttpRequest();
  current = xhr;
  box.hidden = false;
  bar.value = 0;
  retry.hidden = true;
  stop.hidden = false;
  submit.disabled = true;
  say(`Uploading ${file.name}…`);
  xhr.open('POST', '/imports');
  xhr.setRequestHeader(
    'x-csrf-token',
    document.querySelector('meta[name="csrf-token"]')?.getAttribute('content') ?? '',
  );
  xhr.setRequestHeader('accept', 'application/json');
  xhr.upload.addEventListener('progress', (event) => {
    if (!event.lengthComputable) return;
    bar.value = event.loaded / event.total;
    say(`Uploading ${file.name}: ${Math.floor((100 * event.loaded) / event.total)} %`);
  });
  /** @param {string} message */
  const failed = (message) => {
    current = undefined;
    submit.disabled = false;
    stop.hidden = true;
    retry.hidden = false;
    retry.onclick = () => send(file);
    say(message);
  };
  xhr.addEventListener('load', () => {
    /** @type {unknown} the answer: the Import (202) or a problem */
    let answer;
    try {
      answer = JSON.parse(xhr.responseText);
    } catch {
      answer = undefined;
    }
    if (xhr.status === 202) {
      current = undefined;
      submit.disabled = false;
      box.hidden = true;
      form.reset();
      /** @type {Import} what POST /imports answers with 202 */
      const imp = /** @type {Import} */ (answer);
      addCard(imp);
      say('');
      return;
    }
    const problem = answer && typeof answer === 'object' ? answer : undefined;
    const error = new ApiError(xhr.status, problem);
    showError(form, error);
    // A file the server read and refused is refused again; a server or network failure is worth another try.
    if (xhr.status >= 400 && xhr.status < 500 && xhr.status !== 408 && xhr.status !== 429) {
      current = undefined;
      submit.disabled = false;
      box.hidden = true;
      return;
    }
    failed(`The upload of ${file.name} failed (${error.message}).`);
  });
  xhr.addEventListener('error', () => failed(`The upload of ${file.name} broke off: no connection to the server.`));
  xhr.addEventListener('abort', () => failed(`The upload of ${file.name} was stopped.`));
  xhr.send(data);
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  const file = input.files?.[0];
  if (!file) {
    showError(form, new ApiError(400, { errors: [{ path: 'body/file', message: 'Choose a file first.' }] }));
    return;
  }
  send(file);
});

stop.addEventListener('click', () => current?.abort());

// Leaving the page ends an upload under way (nothing half-sent is kept): the browser asks first.
window.addEventListener('beforeunload', (event) => {
  if (current) event.preventDefault();
});

for (const name of ['dragenter', 'dragover']) {
  zone.addEventListener(name, (event) => {
    event.preventDefault();
    zone.classList.add('dragging');
  });
}
for (const name of ['dragleave', 'drop']) {
  zone.addEventListener(name, () => zone.classList.remove('dragging'));
}
zone.addEventListener('drop', (event) => {
  event.preventDefault();
  const files = event.dataTransfer?.files;
  if (!files || files.length === 0) return;
  input.files = files;
  const file = files[0];
  if (file) send(file);
});

for (const card of /** @type {NodeListOf<HTMLElement>} */ (list.querySelectorAll('[data-import]'))) {
  if (card.dataset.status === 'queued' || card.dataset.status === 'running') void follow(card.dataset.import ?? '');
}
// The list shows "No imports yet" again once the last card is undone.
new MutationObserver(() => {
  empty.hidden = list.children.length > 0;
}).observe(list, { childList: true });
