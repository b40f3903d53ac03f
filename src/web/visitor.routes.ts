// The pages a person sees before signing in: the home page for visitors, first-run setup and,
// when the operator opens it, self-registration. Their forms carry the pre-session CSRF token
// (src/account/csrf.ts) like the sign-in form.
import { seeOther, sendHtml } from '../account/replies.ts';
import { startSession } from '../account/sessions.http.ts';
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import { AppError } from '../core/errors.ts';
import { redeemSetupToken, setupTokenIsValid } from '../users/setup.logic.ts';
import { createUser, type NewUser } from '../users/users.logic.ts';
import { countUsers } from '../users/users.repo.ts';
import { csrfToken } from '../account/csrf.ts';
import { refuseForm } from '../account/forms.ts';
import { html, type Html } from '../lib/html.ts';
import { page } from '../account/plain-page.ts';
import { layout } from './layout.ts';

interface AccountForm {
  username?: string;
  password?: string;
  password_again?: string;
  display_name?: string;
  token?: string;
  csrf?: string;
}

const sendPage = (reply: FastifyReply, status: number, title: string, body: Html) =>
  sendHtml(reply, status, page(title, body));

function accountForm(action: string, csrf: string, form: AccountForm, error?: string, hidden?: Html): Html {
  return html` ${error ? html`<p class="error" role="alert">${error}</p>` : ''}
    <form method="post" action="${action}">
      <input type="hidden" name="csrf" value="${csrf}" />
      ${hidden ?? ''}
      <label for="username">Username</label>
      <input
        id="username"
        name="username"
        required
        minlength="2"
        maxlength="30"
        pattern="[A-Za-z0-9][A-Za-z0-9_]*"
        autocomplete="username"
        value="${form.username ?? ''}"
        aria-describedby="username-help"
      />
      <small id="username-help">2 to 30 letters, digits or underscores.</small>
      <label for="display_name">Display name (optional)</label>
      <input id="display_name" name="display_name" maxlength="100" value="${form.display_name ?? ''}" />
      <label for="password">Password</label>
      <input id="password" name="password" type="password" required minlength="8" autocomplete="new-password" />
      <label for="password_again">Password again</label>
      <input
        id="password_again"
        name="password_again"
        type="password"
        required
        minlength="8"
        autocomplete="new-password"
      />
      <button type="submit">Create account</button>
    </form>`;
}

function newUserFrom(form: AccountForm): NewUser {
  if (form.password !== form.password_again) throw new AppError('password_mismatch', 'The two passwords differ.');
  return { username: form.username ?? '', password: form.password ?? '', displayName: form.display_name };
}

/** `/` for a visitor: what this server is, the way in, and the setup notice while no account exists. */
export async function homeForVisitor(
  _request: FastifyRequest,
  _reply: FastifyReply,
  { db, config }: { db: Db; config: Config },
): Promise<string> {
  const fresh = (await countUsers(db)) === 0;
  return layout({
    title: 'Home',
    narrow: true,
    body: html` <h1>Waypost</h1>
      <p>
        This is a Waypost server: a self-hosted home for one person's or a few people's own data: posts, photos and
        videos, and location history, each item public or private. Apps reach it only through OAuth2 grants their owner
        approved, permission by permission.
      </p>
      ${
        fresh
          ? html`<section aria-labelledby="setup">
              <h2 id="setup">Setting up</h2>
              <p>
                This server has no account yet. To create the first one, open the newest <strong>setup link</strong>
                in the server's log: one is printed when the server starts with no account and when the last account is
                deleted, and only the newest works, once, for 24 hours. Or run on the server:
              </p>
              <p><code>npm run waypost -- user add &lt;username&gt;</code></p>
            </section>`
          : ''
      }
      <p><a class="button" href="/account">Sign in</a></p>
      <ul>
        ${config.registrationOpen ? html`<li><a href="/register">Create an account</a></li>` : ''}
        <li><a href="/docs">API documentation</a> (<a href="/openapi.json">OpenAPI</a>)</li>
        <li><a href="/info">Server information</a></li>
      </ul>`,
  });
}

export async function visitorRoutes(app: FastifyInstance, { db, config }: { db: Db; config: Config }) {
  await app.register(formbody);
  const hide = { schema: { hide: true } };
  const csrf = (request: FastifyRequest, reply: FastifyReply) =>
    csrfToken(request, reply, config.baseUrl, config.secretKey);

  // A query or form field given twice arrives as an array: such a link is not the one printed.
  app.get<{ Querystring: { token?: string | string[] } }>('/setup', hide, async (request, reply) => {
    const token = typeof request.query.token === 'string' ? request.query.token : '';
    if (!(await setupTokenIsValid(db, token))) {
      return sendPage(
        reply,
        403,
        'Setup',
        html`<h1>Setup link not valid</h1>
          <p>
            This setup link expired, was used already, or the server has an account. Restart the server for a new link
            while it has no account, or create one on the server with
            <code>npm run waypost -- user add &lt;username&gt;</code>.
          </p>`,
      );
    }
    return sendPage(
      reply,
      200,
      'Create the first account',
      html`<h1>Create the first account</h1>
        ${accountForm('/setup', csrf(request, reply), {}, undefined, html`<input type="hidden" name="token" value="${token}" />`)}`,
    );
  });

  app.post<{ Body: AccountForm }>('/setup', hide, async (request, reply) => {
    const form = request.body ?? {};
    const refused = refuseForm(request, reply, config, form.csrf, '/');
    if (refused) return refused;
    try {
      const user = await redeemSetupToken(db, typeof form.token === 'string' ? form.token : '', newUserFrom(form));
      // Signed in at once, onto the timeline: the person who just chose the password is the one here.
      await startSession(db, request, reply, config.baseUrl, user.id);
      return seeOther(reply, '/');
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      if (error.code === 'setup_link_invalid')
        return sendPage(
          reply,
          403,
          'Setup',
          html`<h1>Setup link not valid</h1>
            <p>${error.message}</p>`,
        );
      return sendPage(
        reply,
        error.status,
        'Create the first account',
        html`<h1>Create the first account</h1>
          ${accountForm('/setup', csrf(request, reply), form, error.message, html`<input type="hidden" name="token" value="${form.token ?? ''}" />`)}`,
      );
    }
  });

  if (config.registrationOpen) {
    app.get('/register', hide, async (request, reply) =>
      sendPage(
        reply,
        200,
        'Create an account',
        html`<h1>Create an account</h1>
          ${accountForm('/register', csrf(request, reply), {})}`,
      ),
    );
    app.post<{ Body: AccountForm }>('/register', hide, async (request, reply) => {
      const form = request.body ?? {};
      const refused = refuseForm(request, reply, config, form.csrf, '/register');
      if (refused) return refused;
      try {
        const user = await createUser(db, newUserFrom(form));
        await startSession(db, request, reply, config.baseUrl, user.id);
        return seeOther(reply, '/');
      } catch (error) {
        if (!(error instanceof AppError) || error.status >= 500) throw error;
        return sendPage(
          reply,
          error.status,
          'Create an account',
          html`<h1>Create an account</h1>
            ${accountForm('/register', csrf(request, reply), form, error.message)}`,
        );
      }
    });
  }
}
