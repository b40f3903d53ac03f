// Signing in and out from the account pages. Cookie-authenticated, so every form carries a
// CSRF token. The OAuth side adds its own clean-up on sign-out through `onSignOut` (this folder
// never imports src/oauth/).
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import { csrfToken } from './csrf.ts';
import { refuseForm } from './forms.ts';
import { seeOther, sendHtml } from './replies.ts';
import { endSession, sessionUserId } from './sessions.http.ts';
import { signInPage, signInWith } from './sign-in.ts';

type Form = { Body: { username?: string; password?: string; csrf?: string; next?: string } | undefined };

/**
 * A path on this server to go to after signing in; without one, the timeline (`/`), where a
 * person signing in means to be. The OAuth consent's sign-in keeps its own return path
 * (src/oauth/interaction.routes.ts).
 */
export function localPath(next: unknown, fallback = '/'): string {
  return typeof next === 'string' && /^\/(?![/\\])[^\s]*$/.test(next) ? next : fallback;
}

/** The sign-in form for the account pages, going back to `next` once signed in. */
export function accountSignInPage(
  request: FastifyRequest,
  reply: FastifyReply,
  config: Config,
  extra: { username?: string; error?: string; next?: string } = {},
): string {
  const csrf = csrfToken(request, reply, config.baseUrl, config.secretKey);
  const next = extra.next && extra.next !== '/' ? `?next=${encodeURIComponent(extra.next)}` : '';
  return signInPage({ action: `/account/sign-in${next}`, csrf, ...extra });
}

export async function signInRoutes(
  app: FastifyInstance,
  { db, config, onSignOut }: { db: Db; config: Config; onSignOut?: (userId: string) => Promise<void> },
) {
  await app.register(formbody);
  const signIn = signInWith(db, config);
  const hide = { schema: { hide: true } };
  const refused = (request: FastifyRequest<Form>, reply: FastifyReply) =>
    refuseForm(request, reply, config, request.body?.csrf, '/account');

  app.post<Form & { Querystring: { next?: string } }>('/account/sign-in', hide, async (request, reply) => {
    const refusal = refused(request, reply);
    if (refusal) return refusal;
    const next = localPath(request.query.next);
    const result = await signIn(request, reply, request.body ?? {});
    if (!result.ok) {
      const { status, headers, username, error } = result;
      return sendHtml(
        reply.headers(headers),
        status,
        accountSignInPage(request, reply, config, { username, error, next }),
      );
    }
    return seeOther(reply, next);
  });

  app.post<Form>('/account/sign-out', hide, async (request, reply) => {
    const refusal = refused(request, reply);
    if (refusal) return refusal;
    const userId = await sessionUserId(db, config.baseUrl, request);
    await endSession(db, request, reply, config.baseUrl);
    if (userId && onSignOut) await onSignOut(userId);
    return seeOther(reply, '/account');
  });
}
