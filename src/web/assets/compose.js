// @ts-check
// Compose: the counter, uploads with progress and previews, geolocation, posting through the
// JSON API, then each delivery's status, polled until it settles, with a retry for failures.
import { ApiError, announce, api, clearErrors, showError, upload } from './app.js';

/** @typedef {import('../../posts/posts.schemas.ts').Post} Post */
/** @typedef {import('../../posts/posts.schemas.ts').NewPost} NewPost */
/** @typedef {import('../../media/media.schemas.ts').Medium} Medium */
/** @typedef {import('../../items/items.schemas.ts').Scope} Scope */
/** @typedef {{ id: string | undefined, caption: HTMLInputElement }} Attachment the id once uploaded */

// The elements src/web/compose.page.ts always renders.
const form = /** @type {HTMLFormElement} */ (document.getElementById('compose'));
const text = /** @type {HTMLTextAreaElement} */ (document.getElementById('text'));
const counter = /** @type {HTMLElement} */ (document.getElementById('counter'));
const max = Number(form.dataset.max);
/** @type {Record<string, string>} service id -> name, as the page wrote them */
const serviceNames = JSON.parse(form.dataset.services || '{}');
const attachments = /** @type {HTMLUListElement} */ (document.getElementById('attachments'));
const result = /** @type {HTMLElement} */ (document.getElementById('result'));

function count() {
  const length = [...text.value.trim()].length;
  counter.textContent = `${length} / ${max}`;
  counter.classList.toggle('over', length > max);
}
text.addEventListener('input', count);
count();

let pending = 0;
/** @type {Attachment[]} */
const uploaded = [];

/** @type {HTMLInputElement} */ (document.getElementById('files')).addEventListener('change', (event) => {
  if (!(event.target instanceof HTMLInputElement) || !event.target.files) return;
  for (const file of event.target.files) addFile(file);
  event.target.value = '';
});

/** @param {File} file */
function addFile(file) {
  const item = document.createElement('li');
  item.className = 'card attachment';
  const preview = document.createElement('div');
  preview.className = 'preview';
  const url = URL.createObjectURL(file);
  const captionId = `caption-${Math.random().toString(36).slice(2)}`;
  let media;
  if (file.type.startsWith('image/')) {
    media = document.createElement('img');
    media.alt = `Preview of ${file.name}`;
  } else if (file.type.startsWith('video/')) {
    media = document.createElement('video');
    media.muted = true;
    media.setAttribute('aria-label', `Preview of ${file.name}`);
  } else {
    media = document.createElement('audio');
    media.controls = true;
    media.setAttribute('aria-label', `Preview of ${file.name}`);
  }
  media.src = url;
  preview.append(media);
  const details = document.createElement('div');
  const label = document.createElement('label');
  label.htmlFor = captionId;
  label.textContent = `Caption of ${file.name}`;
  const caption = document.createElement('input');
  caption.id = captionId;
  caption.maxLength = 2000;
  caption.dataset.skip = '';
  const progress = document.createElement('progress');
  progress.max = 1;
  progress.value = 0;
  progress.setAttribute('aria-label', `Upload of ${file.name}`);
  const status = document.createElement('span');
  status.className = 'help';
  status.setAttribute('role', 'status');
  status.textContent = 'Uploading…';
  const remove = document.createElement('button');
  remove.type = 'button';
  remove.className = 'secondary small';
  remove.textContent = 'Remove';
  details.append(label, caption, progress, status, remove);
  item.append(preview, details);
  attachments.append(item);

  /** @type {Attachment} */
  const entry = { id: undefined, caption };
  uploaded.push(entry);
  remove.addEventListener('click', () => {
    uploaded.splice(uploaded.indexOf(entry), 1);
    item.remove();
    if (entry.id) void api('DELETE', `/media/id/${entry.id}`).catch(() => undefined);
  });
  const data = new FormData();
  data.append('scope', 'private');
  data.append('file', file);
  pending++;
  /** @type {Promise<Medium>} */ (
    upload('/media', data, (fraction) => {
      progress.value = fraction;
    })
  )
    .then((medium) => {
      entry.id = medium.id;
      progress.value = 1;
      status.textContent = 'Uploaded.';
    })
    .catch((error) => {
      uploaded.splice(uploaded.indexOf(entry), 1);
      status.textContent = `Not uploaded: ${error.message}`;
      status.classList.add('field-error');
    })
    .finally(() => {
      pending--;
    });
}

const locate = /** @type {HTMLButtonElement} */ (document.getElementById('locate'));
const locateStatus = /** @type {HTMLElement} */ (document.getElementById('locate-status'));
locate.addEventListener('click', () => {
  if (!navigator.geolocation) {
    locateStatus.textContent = 'This browser cannot tell its location; type the coordinates.';
    return;
  }
  locateStatus.textContent = 'Asking the browser…';
  navigator.geolocation.getCurrentPosition(
    (position) => {
      /** @type {HTMLInputElement} */ (document.getElementById('lat')).value = position.coords.latitude.toFixed(6);
      /** @type {HTMLInputElement} */ (document.getElementById('lon')).value = position.coords.longitude.toFixed(6);
      locateStatus.textContent = `Located (± ${Math.round(position.coords.accuracy)} m).`;
    },
    (error) => {
      locateStatus.textContent = `No location: ${error.message}`;
    },
  );
});

/**
 * @param {HTMLInputElement} input latitude or longitude, each inside its label
 * @param {string} message
 */
function fieldError(input, message) {
  const span = document.createElement('span');
  span.className = 'field-error';
  span.id = `${input.id}-error`;
  span.textContent = message;
  input.setAttribute('aria-invalid', 'true');
  input.setAttribute('aria-describedby', span.id);
  /** @type {HTMLLabelElement} */ (input.closest('label')).insertAdjacentElement('afterend', span);
  input.focus();
}

/**
 * What is wrong with the text's length, in plain words (the API's own message names its rule,
 * "must be 1 to 5000 characters after trimming"); undefined when it can be posted. Counted as the
 * server counts: characters (code points) after trimming.
 * @param {string} value
 */
function lengthProblem(value) {
  const length = [...value.trim()].length;
  if (length === 0) return 'Write something first: a post needs some text.';
  if (length <= max) return undefined;
  const over = length - max;
  return `Too long: this is ${length.toLocaleString('en-GB')} characters, and a post can have at most ${max.toLocaleString('en-GB')}. Take out ${over.toLocaleString('en-GB')} to post it.`;
}

/** @param {string} message beside the text, which gets the focus */
const textError = (message) => showError(form, new ApiError(400, { errors: [{ path: 'body/text', message }] }));

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  clearErrors(form);
  if (pending > 0) {
    announce(form, 'Wait until every file is uploaded.');
    return;
  }
  const tooLong = lengthProblem(text.value);
  if (tooLong) {
    textError(tooLong);
    return;
  }
  // The scope radios' values are the two scopes.
  const scope = /** @type {Scope} */ (
    /** @type {HTMLInputElement | null} */ (form.querySelector('input[name="scope"]:checked'))?.value ?? 'public'
  );
  const groups = [
    .../** @type {NodeListOf<HTMLInputElement>} */ (form.querySelectorAll('input[name="groups"]:checked')),
  ].map((box) => box.value);
  /** @type {NewPost} */
  const body = {
    text: text.value,
    groups,
    scope,
    media_ids: /** @type {string[]} the uploaded ones */ (uploaded.filter((e) => e.id).map((e) => e.id)),
  };
  const lat = /** @type {HTMLInputElement} */ (document.getElementById('lat'));
  const lon = /** @type {HTMLInputElement} */ (document.getElementById('lon'));
  if (lat.value.trim() || lon.value.trim()) {
    const point = { lat: Number(lat.value), lon: Number(lon.value) };
    if (!Number.isFinite(point.lat) || point.lat < -90 || point.lat > 90 || !lat.value.trim()) {
      fieldError(lat, 'A latitude is a number from -90 to 90.');
      return;
    }
    if (!Number.isFinite(point.lon) || point.lon < -180 || point.lon > 180 || !lon.value.trim()) {
      fieldError(lon, 'A longitude is a number from -180 to 180.');
      return;
    }
    body.location = point;
  }
  const button = /** @type {HTMLButtonElement} */ (document.getElementById('post-button'));
  button.disabled = true;
  try {
    // Each file takes the post's scope and its caption first, so a public post shows its media.
    for (const entry of uploaded.filter((e) => e.id)) {
      await api('POST', `/media/id/${entry.id}`, { scope, caption: entry.caption.value });
    }
    /** @type {{ data: Post }} */
    const { data: post } = await api('POST', '/posts', body);
    form.reset();
    attachments.replaceChildren();
    uploaded.length = 0;
    count();
    showPost(post);
  } catch (error) {
    // The server counts as lengthProblem() does; should it still refuse the text, say so in the same words.
    const refusedText = error instanceof ApiError && error.problem?.errors?.some((e) => e.path === 'body/text');
    const plain = refusedText ? lengthProblem(text.value) : undefined;
    if (plain) textError(plain);
    else showError(form, error);
  } finally {
    button.disabled = false;
  }
});

/** @param {Post} post */
function showPost(post) {
  result.replaceChildren();
  const card = document.createElement('article');
  card.className = 'card';
  const heading = document.createElement('h2');
  heading.textContent = 'Posted';
  const link = document.createElement('p');
  const a = document.createElement('a');
  a.href = `/app/posts/${post.id}`;
  a.textContent = 'Open the post';
  const timeline = document.createElement('a');
  timeline.href = `/#post-${post.id}`;
  timeline.textContent = 'see it on the timeline';
  link.append(a, ' or ', timeline);
  const list = document.createElement('ul');
  list.className = 'deliveries plain-list';
  card.append(heading, link, list);
  result.append(card);
  renderDeliveries(post, list);
  // The button that had the focus was disabled while posting: the focus goes to what happened, so
  // a keyboard or screen reader user is not left at the top of the page.
  heading.tabIndex = -1;
  heading.focus();
}

/**
 * @param {Post} post
 * @param {HTMLUListElement} list
 */
function renderDeliveries(post, list) {
  list.replaceChildren();
  if (!post.deliveries || post.deliveries.length === 0) {
    const li = document.createElement('li');
    li.textContent = 'Sent to no service.';
    list.append(li);
    return;
  }
  let unsettled = false;
  for (const delivery of post.deliveries) {
    const li = document.createElement('li');
    li.dataset.service = delivery.service_id;
    const name = document.createElement('strong');
    name.textContent = serviceNames[delivery.service_id] ?? delivery.service_id;
    const status = document.createElement('span');
    status.className = `delivery-status status-${delivery.status}`;
    status.textContent = delivery.status;
    li.append(name, ': ', status);
    if (delivery.status === 'pending') unsettled = true;
    if (delivery.remote_url) {
      const remote = document.createElement('a');
      remote.href = delivery.remote_url;
      remote.textContent = 'the copy there';
      li.append(' (', remote, ')');
    }
    // A pending delivery with an error failed an attempt and waits to be tried again.
    if (delivery.last_error) {
      li.append(delivery.status === 'pending' ? ` (last try: ${delivery.last_error})` : `: ${delivery.last_error}`);
    }
    if (delivery.status === 'failed') {
      const retry = document.createElement('button');
      retry.type = 'button';
      retry.className = 'secondary small';
      retry.textContent = 'Retry';
      retry.addEventListener('click', async () => {
        retry.disabled = true;
        try {
          await api('POST', `/posts/id/${post.id}/deliveries/${delivery.service_id}/retry`);
          void poll(post.id, list);
        } catch (error) {
          retry.disabled = false;
          li.append(` ${error instanceof Error ? error.message : String(error)}`);
        }
      });
      li.append(' ', retry);
    }
    list.append(li);
  }
  if (unsettled) setTimeout(() => void poll(post.id, list), 1000);
}

/**
 * @param {string} id
 * @param {HTMLUListElement} list
 */
async function poll(id, list) {
  try {
    /** @type {{ data: Post }} */
    const { data } = await api('GET', `/posts/id/${id}`);
    renderDeliveries(data, list);
  } catch {
    setTimeout(() => void poll(id, list), 3000);
  }
}
