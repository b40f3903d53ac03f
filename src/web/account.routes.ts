// The person's apps page at /account: the apps they authorized with their permissions, revoke
// any of them; signed out, the sign-in form (src/account/).
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { html, page, type Html } from '../account/html.ts';
import { seeOther, sendHtml } from '../account/replies.ts';
import { csrfToken, csrfValid, sessionUserId } from '../account/sessions.logic.ts';
import { accountSignInPage, formExpired } from '../account/sign-in.routes.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import { listAuthorizedApps, revokeAuthorizedApp } from '../oauth/grants.logic.ts';
import { findUserById } from '../users/users.repo.ts';

type Form = { Body: { csrf?: string } | undefined };

const send = sendHtml;

export async function accountRoutes(app: FastifyInstance, { db, config }: { db: Db; config: Config }) {
  await app.register(formbody);
  const hide = { schema: { hide: true } };
  const csrf = (request: FastifyRequest, reply: FastifyReply) =>
    csrfToken(request, reply, config.baseUrl, config.secretKey);
  const csrfOk = (request: FastifyRequest<Form>) =>
    csrfValid(request, config.baseUrl, config.secretKey, request.body?.csrf);

  app.get('/account', hide, async (request, reply) => {
    const userId = await sessionUserId(db, request);
    const user = userId ? await findUserById(db, userId) : undefined;
    if (!user) return send(reply, 200, accountSignInPage(request, reply, config));
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

  app.post<Form & { Params: { grantId: string } }>('/account/apps/:grantId/revoke', hide, async (request, reply) => {
    if (!csrfOk(request)) return formExpired(reply);
    const userId = await sessionUserId(db, request);
    if (!userId) return seeOther(reply, '/account');
    await revokeAuthorizedApp(db, userId, request.params.grantId);
    return seeOther(reply, '/account');
  });
}
