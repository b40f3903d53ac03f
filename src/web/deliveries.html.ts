// Where a post went, as its owner sees it: each service, its delivery's real state and, when an
// attempt failed, the error; what became of an edit; and Retry beside every delivery that failed
// or was cancelled (docs/api.md "Deliveries"). One line on the Timeline's card, a list on the
// post's page (./post.page.ts), which also says when a pending delivery is tried next.
import { html, type Html } from '../lib/html.ts';
import type { Delivery } from '../posts/posts.schemas.ts';
import type { NextTry } from '../services/deliveries.logic.ts';
import { clockOf, dayOf } from './time.ts';

/** What became of the latest edit of the text at one service, in words; empty when never edited. */
function editWords(d: Delivery): Html | string {
  switch (d.edit_status) {
    case 'pending':
      return html`, edit ${d.edit_error ? html`waiting (last try: ${d.edit_error})` : 'on its way'}`;
    case 'delivered':
      return ', edit delivered';
    case 'failed':
      return html`, <span class="status-failed">edit failed</span> (${d.edit_error ?? 'no reason given'})`;
    case 'unsupported':
      return ', takes no edits: it keeps the first text';
    default:
      return '';
  }
}

/** The state of one delivery in words: a pending one with an error failed a try and waits for the next. */
function stateWords(d: Delivery): Html {
  return html`<span class="status-${d.status}">${d.status}</span>${
      d.last_error ? html` (${d.status === 'pending' ? 'last try: ' : ''}${d.last_error})` : ''
    }${editWords(d)}`;
}

const retryable = (d: Delivery) => d.status === 'failed' || d.status === 'cancelled';

function retryButton(postId: string, d: Delivery, name: string): Html {
  return html`<form data-api="POST /posts/id/${postId}/deliveries/${d.service_id}/retry" data-done="reload">
    <button type="submit" class="secondary small">Retry ${name}</button>
  </form>`;
}

/** The Timeline's line: every delivery in a sentence, then Retry for each one that failed. */
export function deliveriesLine(
  postId: string,
  deliveries: readonly Delivery[],
  services: ReadonlyMap<string, string>,
): Html {
  const name = (d: Delivery) => services.get(d.service_id) ?? d.service_id;
  // A cancelled delivery whose service is gone has nowhere to go again.
  const retries = deliveries
    .filter((d) => retryable(d) && services.has(d.service_id))
    .map((d) => retryButton(postId, d, name(d)));
  return html`<p class="meta deliveries">
      Deliveries: ${deliveries.map((d, i) => html`${i > 0 ? '; ' : ''}${name(d)}: ${stateWords(d)}`)}
    </p>
    ${retries.length ? html`<div class="retries">${retries}</div>` : ''}`;
}

/** `YYYY-MM-DD HH:MM` of an instant in the person's zone, kept on one line. */
function instant(ms: number, timezone: string): Html {
  return html`<time datetime="${new Date(ms).toISOString()}">${dayOf(ms, timezone)} ${clockOf(ms, timezone)}</time>`;
}

/** When a delivery that failed a try is tried again, in words: at its job's time, or now. */
function nextTryWords(next: NextTry | undefined, timezone: string): Html | string {
  if (next === 'now') return ' · trying again now';
  // Due already (every worker busy, or none running): the next free one takes it.
  if (next === undefined || next <= Date.now()) return ' · Waypost tries again by itself';
  return html` · Waypost tries again by itself at ${instant(next, timezone)}`;
}

/**
 * The post page's list: one entry a service, with tries, when it last changed, where it is, when
 * a pending one that failed a try is tried next (`nextTries`, by service), and Retry.
 */
export function deliveriesList(
  postId: string,
  deliveries: readonly Delivery[],
  services: ReadonlyMap<string, string>,
  timezone: string,
  nextTries: ReadonlyMap<string, NextTry> = new Map(),
): Html {
  if (deliveries.length === 0) return html`<p>Not sent to any service: it is kept here only.</p>`;
  return html`<ul class="plain-list deliveries-list" aria-label="Deliveries">
    ${deliveries.map((d) => {
      const name = services.get(d.service_id);
      const at = Math.round(d.updated_at * 1000);
      const tries = d.attempts === 1 ? '1 try' : `${d.attempts} tries`;
      return html`<li class="card delivery" data-delivery="${d.service_id}">
        <p>
          <strong>${name ?? 'A removed service'}</strong>: ${stateWords(d)}
          ${d.remote_url ? html`· <a href="${d.remote_url}" rel="noopener noreferrer">see it there</a>` : ''}
        </p>
        <p class="meta">
          ${tries} · last change ${instant(at, timezone)}
          ${d.status === 'pending' && d.last_error ? nextTryWords(nextTries.get(d.service_id), timezone) : ''}
        </p>
        ${retryable(d) && name ? retryButton(postId, d, name) : ''}
      </li>`;
    })}
  </ul>`;
}
