// @ts-check
// Services: the on/off switch, the test button (the service's answer shown beside it), group
// membership boxes, a signing secret Waypost made shown once, and connecting by signing in on
// the service's server (the browser goes to its authorization page). Forms are the shared JSON
// forms of app.js.
import { api } from './app.js';

/** @typedef {import('../../services/services.schemas.ts').ServiceTest} ServiceTest */
/** @typedef {import('../../services/services.schemas.ts').Service} Service */
/** @typedef {import('../../services/services.schemas.ts').ServiceConnectStart} ServiceConnectStart */

/**
 * Shows the secrets Waypost made for a service, once: with a Copy button, and a link that shows
 * the page as it now is. The API never shows them again.
 * @param {Element} place where the panel goes (its content is replaced)
 * @param {Service} service the answer that carries `generated_secrets`
 */
function showSecrets(place, service) {
  place.replaceChildren();
  const panel = document.createElement('div');
  panel.className = 'secret-once notice';
  const lead = document.createElement('p');
  const strong = document.createElement('strong');
  strong.textContent = `The signing secret of ${service.name}`;
  lead.append(
    strong,
    ', shown this once: put it in the receiver now. Waypost keeps it encrypted and never shows it again.',
  );
  panel.append(lead);
  for (const [field, value] of Object.entries(service.generated_secrets ?? {})) {
    const row = document.createElement('p');
    row.className = 'copyable';
    const code = document.createElement('code');
    code.id = `made-${service.id}-${field}`;
    code.textContent = value;
    const copy = document.createElement('button');
    copy.type = 'button';
    copy.className = 'secondary small';
    copy.dataset.copyFrom = code.id;
    copy.dataset.what = 'Secret';
    copy.textContent = 'Copy the secret';
    const status = document.createElement('span');
    status.className = 'copy-status help';
    status.setAttribute('role', 'status');
    row.append(code, ' ', copy, ' ', status);
    panel.append(row);
  }
  const done = document.createElement('a');
  // Another query than the page's, so following it loads the page as it now is.
  done.href = `/app/services?added=${encodeURIComponent(service.id)}#service-${service.id}`;
  done.textContent = 'Done: show my services';
  const after = document.createElement('p');
  after.append(done);
  panel.append(after);
  place.append(panel);
  panel.setAttribute('tabindex', '-1');
  panel.focus();
}

// A service added with a secret Waypost made: the form gives way to the secret.
document.addEventListener('api:done', (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || !(event instanceof CustomEvent)) return;
  if (form.dataset.connect !== undefined) {
    /** @type {ServiceConnectStart} */
    const started = event.detail;
    window.location.assign(started.authorize_url);
    return;
  }
  if (form.dataset.showsSecret === undefined) return;
  /** @type {Service} */
  const service = event.detail;
  const place = document.createElement('div');
  form.replaceWith(place);
  showSecrets(place, service);
});

// A new signing secret for a service, asked for first: the old one stops working at once.
document.addEventListener('click', async (event) => {
  const button = event.target instanceof Element ? event.target.closest('button[data-renew]') : null;
  if (!(button instanceof HTMLButtonElement)) return;
  const place = button.closest('[data-service]')?.querySelector('.secret-result');
  if (!place || !window.confirm(button.dataset.confirm ?? 'Make a new secret?')) return;
  button.disabled = true;
  try {
    /** @type {{ data: Service }} */
    const { data } = await api('POST', /** @type {string} the selector asked for it */ (button.dataset.renew));
    showSecrets(place, data);
  } catch (error) {
    place.textContent = error instanceof Error ? error.message : String(error);
    place.className = 'secret-result error';
  } finally {
    button.disabled = false;
  }
});

document.addEventListener('click', async (event) => {
  const button = event.target instanceof Element ? event.target.closest('button[data-test]') : null;
  if (!(button instanceof HTMLButtonElement)) return;
  const status = button.closest('[data-service]')?.querySelector('.test-result');
  if (!status) return;
  button.disabled = true;
  status.textContent = 'Testing…';
  try {
    // 200 whatever the target said: `ok` tells, `status` is its HTTP status (null: not reached),
    // `detail` its answer or why it could not be reached (docs/api.md "Services and groups").
    /** @type {{ data: ServiceTest }} */
    const { data } = await api('POST', `/services/${button.dataset.test}/test`);
    const answer = data && typeof data === 'object' ? data : { ok: false, status: null, detail: String(data) };
    const answered =
      answer.status !== null && answer.status !== undefined ? `the service answered ${answer.status}` : '';
    if (answer.ok === true) {
      status.textContent = `Test sent${answered ? `: ${answered}` : ''}.`;
      status.className = 'test-result status-delivered';
    } else {
      const said = [answered, answer.detail ?? ''].filter(Boolean);
      status.textContent = `Test failed: ${said.length ? said.join(': ') : 'no answer'}.`;
      status.className = 'test-result status-failed';
    }
  } catch (error) {
    status.textContent = `Test failed: ${error instanceof Error ? error.message : String(error)}`;
    status.className = 'test-result status-failed';
  } finally {
    button.disabled = false;
  }
});

document.addEventListener('change', async (event) => {
  const box = event.target;
  if (!(box instanceof HTMLInputElement) || !box.dataset.enable) return;
  const status = document.getElementById(`${box.id}-status`);
  if (!status) return;
  box.disabled = true;
  try {
    /** @type {{ data: Service }} */
    const { data } = await api('POST', box.dataset.enable, { enabled: box.checked });
    box.checked = data.enabled;
    status.textContent = data.enabled ? 'On: it gets new posts.' : 'Off: it gets nothing new.';
    status.className = 'help';
  } catch (error) {
    box.checked = !box.checked;
    status.textContent = error instanceof Error ? error.message : String(error);
    status.className = 'field-error';
  } finally {
    box.disabled = false;
  }
});

document.addEventListener('change', async (event) => {
  const box = event.target;
  if (!(box instanceof HTMLInputElement) || !box.dataset.member) return;
  const status = box.closest('[data-item]')?.querySelector('.member-status');
  if (!status) return;
  box.disabled = true;
  try {
    await api(box.checked ? 'POST' : 'DELETE', box.dataset.member);
    status.textContent = 'Saved.';
  } catch (error) {
    box.checked = !box.checked;
    status.textContent = error instanceof Error ? error.message : String(error);
  } finally {
    box.disabled = false;
  }
});
