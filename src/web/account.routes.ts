// The person's own page: sign in and out, see the apps they authorized with their permissions,
// revoke any of them. Cookie-authenticated, so every form carries a CSRF token.
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import { listAuthorizedApps, revokeAuthorizedApp } from '../oauth/grants.logic.ts';
import { deleteProviderSessions } from '../oauth/oauth.repo.ts';
import { signInPage } from '../oauth/pages.ts';
import { findUserById } from '../users/users.repo.ts';
import { html, page, type Html } from './html.ts';
import { seeOther, sendHtml } from './replies.ts';
import {
  csrfToken,
  csrfValid,
  endSession,
  rememberDevice,
  sessionUserId,
  signIn,
  signInClient,
  signInRefusal,
  startSession,
} from './sessions.logic.ts';
import { signInLimits } from './sign-in-limits.logic.ts';

type Form = { Body: { username?: string; password?: string; csrf?: string } | undefined };

const send = sendHtml;

export async function accountRoutes(app: FastifyInstance, { db, config }: { db: Db; config: Config }) {
  await app.register(formbody);
  const limits = signInLimits(config);
  const hide = { schema: { hide: true } };
  const csrf = (request: FastifyRequest, reply: FastifyReply) =>
    csrfToken(request, reply, config.baseUrl, config.secretKey);
  const csrfOk = (request: FastifyRequest<Form>) =>
    csrfValid(request, config.baseUrl, config.secretKey, request.body?.csrf);
  const expired = (reply: FastifyReply) =>
    send(
      reply,
      403,
      page(
        'Form expired',
        html`<h1>This form has expired</h1>
          <p><a href="/account">Open your account page</a> and try again.</p>`,
      ),
    );

  const signInForm = (
    request: FastifyRequest,
    reply: FastifyReply,
    extra: { username?: string; error?: string } = {},
  ) => signInPage({ action: '/account/sign-in', csrf: csrf(request, reply), ...extra });

  app.get('/account', hide, async (request, reply) => {
    const userId = await sessionUserId(db, request);
    const user = userId ? await findUserById(db, userId) : undefined;
    if (!user) return send(reply, 200, signInForm(request, reply));
    const token = csrf(request, reply);
    const apps = await listAuthorizedApps(db, user.id);
    const list: Html =
      apps.length === 0
        ? html`<p>You have not authorized any app.</p>`
        : html`<ul class="apps">
            ${apps.map(
              (a) =>
                html`<li>
                  <h3>${a.clientName}</h3>
                  ${
                    a.permissions.length > 0
                      ? html`<ul aria-label="Permissions of ${a.clientName}">
                          ${a.permissions.map((p) => html`<li>${p.description} <small>(<code>${p.name}</code>)</small></li>`)}
                        </ul>`
                      : html`<p>No permissions.</p>`
                  }
                  <form method="post" action="/account/apps/${a.grantId}/revoke">
                    <input type="hidden" name="csrf" value="${token}" />
                    <button type="submit" aria-label="Revoke access of ${a.clientName}">Revoke access</button>
                  </form>
                </li>`,
            )}
          </ul>`;
    return send(
      reply,
      200,
      page(
        'Your account',
        html`<h1>Your account</h1>
          <p>Signed in as <strong>${user.username}</strong>.</p>
          <h2>Apps you have authorized</h2>
          <p>Revoking an app ends every token it holds; it must ask you again to get back in.</p>
          ${list}
          <h2>Your data</h2>
          <p><a href="/export" download>Export: download everything</a> (one ZIP file, private items included).</p>
          <p><a href="/account/delete">Delete your account</a> and all its data.</p>
          <form method="post" action="/account/sign-out">
            <input type="hidden" name="csrf" value="${token}" />
            <button type="submit">Sign out</button>
          </form>`,
      ),
    );
  });

  app.post<Form>('/account/sign-in', hide, async (request, reply) => {
    if (!csrfOk(request)) return expired(reply);
    const username = String(request.body?.username ?? '');
    const result = await signIn(db, limits, username, String(request.body?.password ?? ''), signInClient(request));
    if (!result.ok) {
      const { status, headers, error } = signInRefusal(result);
      return send(reply.headers(headers), status, signInForm(request, reply, { username, error }));
    }
    await startSession(db, request, reply, config.baseUrl, result.user.id);
    rememberDevice(request, reply, config.baseUrl, result.device);
    return seeOther(reply, '/account');
  });

  app.post<Form>('/account/sign-out', hide, async (request, reply) => {
    if (!csrfOk(request)) return expired(reply);
    const userId = await sessionUserId(db, request);
    await endSession(db, request, reply, config.baseUrl);
    // The authorization server's own sign-in memory ends too, so /oauth/authorize asks again.
    if (userId) await deleteProviderSessions(db, userId);
    return seeOther(reply, '/account');
  });

  app.post<Form & { Params: { grantId: string } }>('/account/apps/:grantId/revoke', hide, async (request, reply) => {
    if (!csrfOk(request)) return expired(reply);
    const userId = await sessionUserId(db, request);
    if (!userId) return seeOther(reply, '/account');
    await revokeAuthorizedApp(db, userId, request.params.grantId);
    return seeOther(reply, '/account');
  });
}
