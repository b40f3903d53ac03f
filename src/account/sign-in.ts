// Signing in, once for every page that asks for a password to start a session: the account
// pages (src/account/sign-in.routes.ts) and the OAuth interaction (src/oauth/interaction.routes.ts).
// Limits per docs/sign-in-limits.md; the session is rotated and the device cookie kept.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import { html, type Html } from '../lib/html.ts';
import { page } from './plain-page.ts';
import { signIn, signInRefusal } from './sessions.logic.ts';
import { rememberDevice, signInClient, startSession } from './sessions.http.ts';
import { signInLimits } from './sign-in-limits.logic.ts';

export type SignInOutcome =
  | { ok: true; userId: string }
  | { ok: false; status: 401 | 429; headers: Record<string, string>; username: string; error: string };

/** A function that checks the posted username and password and, when right, starts a session. */
export function signInWith(db: Db, config: Config) {
  const limits = signInLimits(config);
  return async (
    request: FastifyRequest,
    reply: FastifyReply,
    form: { username?: string; password?: string },
  ): Promise<SignInOutcome> => {
    const username = String(form.username ?? '');
    const result = await signIn(
      db,
      limits,
      username,
      String(form.password ?? ''),
      signInClient(request, config.baseUrl),
    );
    if (!result.ok) return { ok: false, username, ...signInRefusal(result) };
    await startSession(db, request, reply, config.baseUrl, result.user.id);
    rememberDevice(request, reply, config.baseUrl, result.device);
    return { ok: true, userId: result.user.id };
  };
}

export interface SignInForm {
  action: string;
  csrf: string;
  /** Shown above the form, e.g. which app asks. */
  intro?: Html | string;
  username?: string;
  error?: string;
}

export function signInPage(form: SignInForm): string {
  return page(
    'Sign in',
    html`<h1>Sign in to Waypost</h1>
      ${form.intro ? html`<p>${form.intro}</p>` : ''}
      ${form.error ? html`<p class="error" role="alert">${form.error}</p>` : ''}
      <form method="post" action="${form.action}">
        <input type="hidden" name="csrf" value="${form.csrf}" />
        <label for="username">Username</label>
        <input
          id="username"
          name="username"
          required
          autocomplete="username"
          autocapitalize="none"
          value="${form.username ?? ''}"
        />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" required autocomplete="current-password" />
        <button type="submit">Sign in</button>
      </form>`,
  );
}
