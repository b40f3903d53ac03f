// @ts-check
// Services: the on/off switch, the test button (the service's answer shown beside it) and group
// membership boxes. Edit forms are the shared JSON forms of app.js.
import { api } from './app.js';

/** @typedef {import('../../services/services.schemas.ts').ServiceTest} ServiceTest */
/** @typedef {import('../../services/services.schemas.ts').Service} Service */

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
