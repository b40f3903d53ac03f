// Every form POST of the pages starts here: refused (403, a page that says why, nothing done)
// unless it comes from one of this server's pages with this browser's CSRF token (./csrf.ts).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { formRefusal } from './csrf.ts';
import { html } from '../lib/html.ts';
import { page } from './plain-page.ts';
import { sendHtml } from './replies.ts';

/**
 * The refusal page when the form may not run, else undefined. `again`: the page the form lives
 * on, to open and send it from.
 */
export function refuseForm(
  request: FastifyRequest,
  reply: FastifyReply,
  keys: { baseUrl: string; secretKey: Buffer },
  token: unknown,
  again: string,
): FastifyReply | undefined {
  const refusal = formRefusal(request, keys.baseUrl, keys.secretKey, token);
  if (!refusal) return undefined;
  const body =
    refusal === 'other_site'
      ? html`<h1>This form was refused</h1>
          <p>It was sent from a page that is not one of this server’s own, so nothing was changed.</p>
          <p><a href="${again}">Open the page again</a> and send the form from there.</p>`
      : html`<h1>This form has expired</h1>
          <p><a href="${again}">Open the page again</a> and try again.</p>`;
  return sendHtml(reply, 403, page(refusal === 'other_site' ? 'Form refused' : 'Form expired', body));
}
