// Changing one's password from the web app (docs/design.md "Accounts: setup, sign-in, password"):
//
//   GET  /account/password   the form: current password, new password twice
//   POST /account/password   changes it (src/account/password.logic.ts), then 303 to the form
//                            with `?changed=1`, which says it is done
//
// A form with the session and its CSRF token, answered in the app's layout, each error beside
// its field. Once changed, every other browser signed in as the person is signed out and this
// one gets a new session; the apps the person authorized keep their access.
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { csrfToken } from '../account/csrf.ts';
import { refuseForm } from '../account/forms.ts';
import { changeOwnPassword, type PasswordErrors, type PasswordForm } from '../account/password.logic.ts';
import { seeOther, sendHtml } from '../account/replies.ts';
import { accountSignInPage } from '../account/sign-in.routes.ts';
import { rememberDevice, signInClient, startSession } from '../account/sessions.http.ts';
import { signInLimits } from '../account/sign-in-limits.logic.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import { html, type Html } from '../lib/html.ts';
import { PASSWORD_MIN } from '../users/users.rules.ts';
import type { Viewer } from './page.ts';
import { APP_PAGES } from './registry.ts';
import { appPage, viewerOf } from './signed-in.ts';

const PATH = '/account/password';

function field(
  name: keyof PasswordForm,
  label: string,
  autocomplete: string,
  errors: PasswordErrors,
  help?: string,
): Html {
  const error = errors[name];
  const described = [help ? `${name}-help` : '', error ? `${name}-error` : ''].filter(Boolean).join(' ');
  return html`<label for="${name}">${label}</label>
    <input
      id="${name}"
      name="${name}"
      type="password"
      required
      autocomplete="${autocomplete}"
      ${name === 'current' ? '' : html`minlength="${PASSWORD_MIN}"`}
      ${described ? html`aria-describedby="${described}"` : ''}
      ${error ? html`aria-invalid="true"` : ''}
    />
    ${help ? html`<small class="help" id="${name}-help">${help}</small>` : ''}
    ${error ? html`<span class="field-error" id="${name}-error">${error}</span>` : ''}`;
}

function passwordBody(csrf: string, errors: PasswordErrors = {}, done = false): Html {
  const count = Object.keys(errors).length;
  return html`<h1>Change your password</h1>
    ${
      done
        ? html`<p class="notice" role="status" tabindex="-1" id="password-changed">
            Your password is changed. Every other browser signed in as you is signed out and must sign in with the new
            password; this one stays signed in. Apps you authorized keep their access: revoke one under
            <a href="/account">Apps</a>.
          </p>`
        : ''
    }
    ${
      count > 0
        ? html`<p class="error" role="alert">
            ${count === 1 ? 'The password was not changed: see the field below.' : 'The password was not changed: see the fields below.'}
          </p>`
        : ''
    }
    <form method="post" action="${PATH}" class="card">
      <input type="hidden" name="csrf" value="${csrf}" />
      ${field('current', 'Current password', 'current-password', errors)}
      ${field('password', 'New password', 'new-password', errors, `At least ${PASSWORD_MIN} characters.`)}
      ${field('password_again', 'New password again', 'new-password', errors)}
      <button type="submit">Change password</button>
    </form>
    <p class="help">
      Changing it signs out every other browser signed in as you. Apps you authorized keep their access.
    </p>`;
}

export async function passwordRoutes(app: FastifyInstance, { db, config }: { db: Db; config: Config }) {
  await app.register(formbody);
  const { baseUrl } = config;
  const limits = signInLimits(config);
  const hide = { schema: { hide: true } };
  const pages = new Set(APP_PAGES.map((page) => page.path));

  function show(
    request: FastifyRequest,
    reply: FastifyReply,
    viewer: Viewer,
    status: number,
    body: (csrf: string) => Html,
  ) {
    const csrf = csrfToken(request, reply, baseUrl, config.secretKey);
    const page = appPage({ title: 'Change your password', body: body(csrf), viewer, csrf, current: '/account', pages });
    return sendHtml(reply, status, page);
  }

  app.get<{ Querystring: { changed?: unknown } }>(PATH, hide, async (request, reply) => {
    const viewer = await viewerOf(db, baseUrl, request);
    if (!viewer) return sendHtml(reply, 200, accountSignInPage(request, reply, config, { next: PATH }));
    const changed = request.query.changed === '1';
    return show(request, reply, viewer, 200, (csrf) => passwordBody(csrf, {}, changed));
  });

  app.post<{ Body: (PasswordForm & { csrf?: string }) | undefined }>(PATH, hide, async (request, reply) => {
    const form = request.body ?? {};
    const refusal = refuseForm(request, reply, config, form.csrf, PATH);
    if (refusal) return refusal;
    const viewer = await viewerOf(db, baseUrl, request);
    if (!viewer) return seeOther(reply, '/account');
    const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
    const result = await changeOwnPassword(
      db,
      limits,
      viewer,
      { current: text(form.current), password: text(form.password), password_again: text(form.password_again) },
      signInClient(request, baseUrl),
    );
    if (!result.ok) {
      return show(request, reply.headers(result.headers), viewer, result.status, (csrf) =>
        passwordBody(csrf, result.errors),
      );
    }
    // Every session of the person ended with the change; this browser gets a fresh one, and the
    // page is read again under it (its CSRF token is bound to the session).
    await startSession(db, request, reply, baseUrl, viewer.id);
    rememberDevice(request, reply, baseUrl, result.device);
    return seeOther(reply, `${PATH}?changed=1`);
  });
}
