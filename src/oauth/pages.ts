// The authorization server's pages: consent, and the error page oidc-provider shows
// when it cannot safely redirect (the sign-in page is src/account/sign-in.ts). No scripts; every interpolated value is escaped (html``).
import type { ErrorOut, KoaContextWithOIDC } from 'oidc-provider';
import { html } from '../lib/html.ts';
import { page } from '../account/plain-page.ts';
import { PERMISSIONS, isPermission } from '../core/permissions.ts';

// Friendly words for the errors a person can meet in the browser. The error_description may
// echo request input (a redirect_uri), so it is shown only escaped.
const FRIENDLY: Record<string, string> = {
  invalid_request: 'The app sent an invalid request.',
  invalid_client: 'The app is not known here.',
  invalid_redirect_uri: 'The app asked to send you back to an address it has not registered.',
  unsupported_response_type: 'The app asked for something this server does not do.',
  invalid_scope: 'The app asked for a permission that does not exist.',
  access_denied: 'Access was denied.',
  server_error: 'Something went wrong on our side.',
};

/** oidc-provider's renderError: used when the requester wants HTML and no redirect is safe. */
export async function renderError(ctx: KoaContextWithOIDC, out: ErrorOut, _error: Error): Promise<void> {
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('cache-control', 'no-store');
  const friendly = FRIENDLY[out.error] ?? 'The request could not be completed.';
  const description = out.error_description && out.error !== 'server_error' ? out.error_description : undefined;
  ctx.body = page(
    'Sign-in request failed',
    html`<h1>Sign-in request failed</h1>
      <p>${friendly}</p>
      <p><code>${out.error}</code>${description ? html`: ${description}` : ''}</p>
      <p>You can close this page and go back to the app.</p>`,
  );
}

export interface ConsentForm {
  uid: string;
  csrf: string;
  clientName: string;
  clientUri?: string | undefined;
  username: string;
  permissions: string[];
  /**
   * An AI assistant connecting to the MCP endpoint (docs/mcp.md): the page says so, and each
   * permission is a box the person may untick.
   */
  assistant?: boolean;
  /** The app registered itself (RFC 7591): a third party, named as it chose, that nobody checked. */
  selfRegistered: boolean;
  /** Where the answer sends the person: the redirect URI's origin, or a native app's scheme. */
  returnTo?: string | undefined;
}

/**
 * What the consent page says about an app that registered itself. Anyone may register one
 * under any name not refused (registration.logic.ts), so the page says so, and names the
 * place the person is sent to, which the app cannot choose freely (https, or loopback).
 */
function thirdPartyNote(returnTo: string | undefined) {
  return html`<p class="warning" role="note">
    This app registered itself with this server: it is not part of Waypost, and the operator has not checked it. Its
    name is whatever it chose. Allow it only if you came here from the app
    yourself.${returnTo ? html` Either way, you will be sent to <code>${returnTo}</code>.` : ''}
  </p>`;
}

/** The assistant's consent: what it will be able to do, one box per permission, all ticked. */
function assistantConsent(form: ConsentForm): string {
  const names = form.permissions.filter(isPermission);
  const boxes = names.map(
    (name) =>
      html`<li>
        <label
          ><input type="checkbox" name="permission" value="${name}" checked /> ${PERMISSIONS[name]}
          <small>(<code>${name}</code>)</small></label
        >
      </li>`,
  );
  const who = form.selfRegistered ? html`the third-party assistant “${form.clientName}”` : form.clientName;
  return page(
    `Connect ${form.clientName}?`,
    html`<h1>Connect ${who} to your Waypost?</h1>
      ${form.selfRegistered ? thirdPartyNote(form.returnTo) : ''}
      <p>
        You are signed in as <strong>${form.username}</strong>. <strong>${form.clientName}</strong> is an AI assistant
        that asks to read and write your Waypost through its assistant connection (MCP). It will be able to search your
        posts and media, read your timeline and post by id, and see your public
        items${names.length === 0 ? '.' : html`, and, with the permissions you leave ticked:`}
      </p>
      <form method="post" action="/oauth/interaction/${form.uid}/confirm">
        <input type="hidden" name="csrf" value="${form.csrf}" />
        ${
          boxes.length > 0
            ? html`<fieldset>
                <legend>Permissions for ${form.clientName}</legend>
                <ul aria-label="Requested permissions">
                  ${boxes}
                </ul>
              </fieldset>`
            : ''
        }
        <p>
          Without “${PERMISSIONS.get_private_scope}” it sees only what is public. Its access works only through the
          assistant connection, and you can revoke it at any time on your <a href="/account">account page</a>.
        </p>
        <button type="submit">Allow</button>
      </form>
      <form method="post" action="/oauth/interaction/${form.uid}/abort">
        <input type="hidden" name="csrf" value="${form.csrf}" />
        <button type="submit">Deny</button>
      </form>`,
  );
}

export function consentPage(form: ConsentForm): string {
  if (form.assistant) return assistantConsent(form);
  const items = form.permissions
    .filter(isPermission)
    .map((name) => html`<li>${PERMISSIONS[name]} <small>(<code>${name}</code>)</small></li>`);
  const app = form.selfRegistered ? html`the third-party app “${form.clientName}”` : form.clientName;
  return page(
    `Allow ${form.clientName}?`,
    html`<h1>Allow ${app} to use your account?</h1>
      ${form.selfRegistered ? thirdPartyNote(form.returnTo) : ''}
      <p>
        You are signed in as <strong>${form.username}</strong>. The app <strong>${form.clientName}</strong>
        ${form.clientUri ? html`(<code>${form.clientUri}</code>)` : ''} asks for
        ${items.length === 0 ? 'no permissions beyond knowing who you are.' : 'these permissions:'}
      </p>
      ${
        items.length > 0
          ? html`<ul aria-label="Requested permissions">
              ${items}
            </ul>`
          : ''
      }
      <p>You can revoke this at any time on your <a href="/account">account page</a>.</p>
      <form method="post" action="/oauth/interaction/${form.uid}/confirm">
        <input type="hidden" name="csrf" value="${form.csrf}" />
        <button type="submit">Allow</button>
      </form>
      <form method="post" action="/oauth/interaction/${form.uid}/abort">
        <input type="hidden" name="csrf" value="${form.csrf}" />
        <button type="submit">Deny</button>
      </form>`,
  );
}

export function expiredPage(): string {
  return page(
    'Sign-in expired',
    html`<h1>This sign-in has expired</h1>
      <p>Go back to the app and start again.</p>`,
  );
}
