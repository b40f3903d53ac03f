// Deleting one's own account from the web: a page that says what goes, and a form
// that takes the password again (counted against the sign-in limits, like a sign-in) and a CSRF
// token like every form here. The deletion itself is the one `waypost user delete` runs.
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { deleteAccount, type AccountTraces } from '../users/account-deletion.logic.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { findUserById } from '../users/users.repo.ts';
import { setupNotice } from '../users/setup.logic.ts';
import { html, type Html } from '../lib/html.ts';
import { page } from '../account/plain-page.ts';
import { seeOther, sendHtml } from '../account/replies.ts';
import { csrfToken } from '../account/csrf.ts';
import { refuseForm } from '../account/forms.ts';
import { signIn, signInRefusal } from '../account/sessions.logic.ts';
import { endSession, sessionUserId, signInClient } from '../account/sessions.http.ts';
import { signInLimits } from '../account/sign-in-limits.logic.ts';

type Form = { Body: { password?: string; csrf?: string } | undefined };

const send = (reply: FastifyReply, status: number, title: string, body: Html) =>
  sendHtml(reply, status, page(title, body));

function deleteForm(username: string, csrf: string, error?: string): Html {
  return html`<h1>Delete your account</h1>
    ${error ? html`<p class="error" role="alert">${error}</p>` : ''}
    <p>
      This deletes the account <strong>${username}</strong> for good, at once: every post, photo, video and location,
      every view, setting, connected service and group, and every app's access. Files that another account also holds
      stay for that account. Posts already sent to other services stay there. Nothing can be restored.
    </p>
    <p><a href="/export" download>Download all your data first</a> (one ZIP file).</p>
    <form method="post" action="/account/delete">
      <input type="hidden" name="csrf" value="${csrf}" />
      <label for="password">Your password, to confirm</label>
      <input id="password" name="password" type="password" required autocomplete="current-password" />
      <button type="submit">Delete my account and all its data</button>
    </form>
    <p><a href="/account">Keep my account</a></p>`;
}

export async function accountDeleteRoutes(
  app: FastifyInstance,
  { database, config, traces }: { database: Database; config: Config; traces: AccountTraces },
) {
  await app.register(formbody);
  const { db } = database;
  const limits = signInLimits(config);
  const hide = { schema: { hide: true } };
  const csrf = (request: FastifyRequest, reply: FastifyReply) =>
    csrfToken(request, reply, config.baseUrl, config.secretKey);
  const signedIn = async (request: FastifyRequest) => {
    const userId = await sessionUserId(db, config.baseUrl, request);
    return userId ? findUserById(db, userId) : undefined;
  };
  const toAccount = (reply: FastifyReply) => seeOther(reply, '/account');

  app.get('/account/delete', hide, async (request, reply) => {
    const user = await signedIn(request);
    if (!user) return toAccount(reply);
    return send(reply, 200, 'Delete your account', deleteForm(user.username, csrf(request, reply)));
  });

  app.post<Form>('/account/delete', hide, async (request, reply) => {
    const refused = refuseForm(request, reply, config, request.body?.csrf, '/account/delete');
    if (refused) return refused;
    const user = await signedIn(request);
    if (!user) return toAccount(reply);
    const password = String(request.body?.password ?? '');
    const result = await signIn(db, limits, user.username, password, signInClient(request, config.baseUrl));
    if (!result.ok || result.user.id !== user.id) {
      const refusal = signInRefusal(result.ok ? { ok: false, reason: 'invalid' } : result);
      const { status, headers } = refusal;
      // Only the password is asked here, so the refusal names only it.
      const error = status === 401 ? 'The password is wrong.' : refusal.error;
      return send(
        reply.headers(headers),
        status,
        'Delete your account',
        deleteForm(user.username, csrf(request, reply), error),
      );
    }
    await deleteAccount(database, user.id, traces);
    await endSession(db, request, reply, config.baseUrl);
    // The last account gone: the log gets a new setup link, as at a start (src/users/setup.logic.ts).
    const setup = await setupNotice(db, config.baseUrl);
    if (setup) request.log.warn({ setup_url: setup.setup_url }, setup.message);
    return send(
      reply,
      200,
      'Account deleted',
      html`<h1>Your account is deleted</h1>
        <p>The account ${user.username} and everything it held are gone from this server.</p>
        ${
          setup
            ? html`<p>
                This server has no account now. The server printed a new setup link to its log, for whoever runs it to
                create an account again.
              </p>`
            : ''
        }
        <p><a href="/">Home</a></p>`,
    );
  });
}
