// The pages oidc-provider sends a person to during /oauth/authorize: sign in, then consent.
// The interaction cookie (signed, SameSite=Lax, path-scoped) ties the browser to the
// interaction; the forms also carry our CSRF token.
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import { findUserById } from '../users/users.repo.ts';
import { html } from '../lib/html.ts';
import { sendHtml as sendPage } from '../account/replies.ts';
import { csrfToken } from '../account/csrf.ts';
import { refuseForm } from '../account/forms.ts';
import { sessionUserId } from '../account/sessions.http.ts';
import { signInPage, signInWith } from '../account/sign-in.ts';
import { selfRegistered } from './clients.logic.ts';
import { consentPage, expiredPage } from './pages.ts';

type Params = { Params: { uid: string } };
type Form = {
  Body: { username?: string; password?: string; csrf?: string; permission?: string | string[] } | undefined;
};
type InteractionResult = Parameters<Provider['interactionResult']>[2];

interface Deps {
  provider: Provider;
  db: Db;
  config: Config;
}

/**
 * The CSP `form-action` source for the client's redirect URI. Chromium applies form-action to
 * the redirects that follow a form POST, and Allow/Deny/sign-in end in a redirect to the
 * client, so 'self' alone would block them.
 */
function redirectSource(redirectUri: unknown): string | undefined {
  const url = typeof redirectUri === 'string' ? URL.parse(redirectUri) : null;
  if (!url) return undefined;
  if (url.protocol === 'http:' || url.protocol === 'https:') return url.origin;
  return /^[a-z][a-z0-9+.-]*:$/i.test(url.protocol) ? url.protocol : undefined; // native apps' schemes
}

function sendHtml(reply: FastifyReply, status: number, body: string, redirectUri?: unknown) {
  const source = redirectSource(redirectUri);
  const csp = reply.getHeader('content-security-policy');
  if (source && typeof csp === 'string') {
    void reply.header('content-security-policy', csp.replace("form-action 'self'", `form-action 'self' ${source}`));
  }
  return sendPage(reply, status, body);
}

/**
 * What the request asks the person for: the permissions not granted yet and, for an assistant,
 * the resource its tokens will be bound to (src/oauth/resources.ts; oidc-provider refused any
 * other before the person got here).
 */
function askedFor(details: Awaited<ReturnType<Provider['interactionDetails']>>): {
  permissions: string[];
  resource: string | undefined;
} {
  const resource = typeof details.params.resource === 'string' ? details.params.resource : undefined;
  const plain = (details.prompt.details.missingOIDCScope as string[] | undefined) ?? [];
  if (resource === undefined) return { permissions: plain, resource };
  const byResource = details.prompt.details.missingResourceScopes as Record<string, string[]> | undefined;
  return { permissions: [...new Set([...(byResource?.[resource] ?? []), ...plain])], resource };
}

/** The app's name as the sign-in page shows it: one that registered itself is marked a third party. */
const appName = (name: string, thirdParty: boolean) =>
  thirdParty ? html`The third-party app <strong>${name}</strong>` : html`<strong>${name}</strong>`;

export async function interactionRoutes(app: FastifyInstance, { provider, db, config }: Deps) {
  await app.register(formbody);
  const signIn = signInWith(db, config);
  const hide = { schema: { hide: true } };

  // The interaction bound to this browser's cookie, checked against the URL. Any failure
  // (cookie missing or expired, another uid) is the same plain page.
  const load = async (request: FastifyRequest<Params>, reply: FastifyReply) => {
    try {
      const details = await provider.interactionDetails(request.raw, reply.raw);
      if (details.uid !== request.params.uid) return undefined;
      const client = await provider.Client.find(String(details.params.client_id));
      if (!client) return undefined;
      const clientName = client.clientName ?? client.clientId;
      return { details, client, clientName, thirdParty: selfRegistered(client.metadata()) };
    } catch {
      return undefined;
    }
  };
  const expired = (reply: FastifyReply) => sendHtml(reply, 400, expiredPage());

  const finish = async (request: FastifyRequest, reply: FastifyReply, result: InteractionResult) => {
    // interactionFinished() would write to the raw response itself; interactionResult() returns
    // the URL and leaves the reply to fastify. 303: RFC 9700 4.12, never 307 after a POST.
    const to = await provider.interactionResult(request.raw, reply.raw, result);
    return reply.code(303).header('cache-control', 'no-store').redirect(to);
  };

  const signInForm = (
    request: FastifyRequest<Params>,
    reply: FastifyReply,
    clientName: string,
    thirdParty: boolean,
    extra: { username?: string; error?: string } = {},
  ) =>
    signInPage({
      action: `/oauth/interaction/${request.params.uid}/login`,
      csrf: csrfToken(request, reply, config.baseUrl, config.secretKey),
      intro: html`${appName(clientName, thirdParty)} wants to use your Waypost account. Sign in to continue.`,
      ...extra,
    });

  app.get<Params>('/oauth/interaction/:uid', hide, async (request, reply) => {
    const it = await load(request, reply);
    if (!it) return expired(reply);
    const { details, client, clientName, thirdParty } = it;
    if (details.prompt.name === 'login') {
      // Signed in on the web pages already (e.g. at /account): no second sign-in.
      const userId = await sessionUserId(db, config.baseUrl, request);
      if (userId) return finish(request, reply, { login: { accountId: userId } });
      return sendHtml(reply, 200, signInForm(request, reply, clientName, thirdParty), details.params.redirect_uri);
    }
    const user = details.session?.accountId ? await findUserById(db, details.session.accountId) : undefined;
    if (details.prompt.name !== 'consent' || !user) return expired(reply);
    const asked = askedFor(details);
    return sendHtml(
      reply,
      200,
      consentPage({
        uid: details.uid,
        csrf: csrfToken(request, reply, config.baseUrl, config.secretKey),
        clientName,
        clientUri: client.clientUri,
        username: user.username,
        permissions: asked.permissions,
        assistant: asked.resource !== undefined,
        selfRegistered: thirdParty,
        returnTo: redirectSource(details.params.redirect_uri),
      }),
      details.params.redirect_uri,
    );
  });

  app.post<Params & Form>('/oauth/interaction/:uid/login', hide, async (request, reply) => {
    const it = await load(request, reply);
    if (!it || it.details.prompt.name !== 'login') return expired(reply);
    const form = request.body ?? {};
    const redirectUri = it.details.params.redirect_uri;
    const refused = refuseForm(request, reply, config, form.csrf, `/oauth/interaction/${request.params.uid}`);
    if (refused) return refused;
    const result = await signIn(request, reply, form);
    if (!result.ok) {
      const { status, headers, username, error } = result;
      const body = signInForm(request, reply, it.clientName, it.thirdParty, { username, error });
      return sendHtml(reply.headers(headers), status, body, redirectUri);
    }
    return finish(request, reply, { login: { accountId: result.userId } });
  });

  app.post<Params & Form>('/oauth/interaction/:uid/confirm', hide, async (request, reply) => {
    const it = await load(request, reply);
    const accountId = it?.details.session?.accountId;
    if (!it || it.details.prompt.name !== 'consent' || !accountId) return expired(reply);
    const refused = refuseForm(request, reply, config, request.body?.csrf, `/oauth/interaction/${request.params.uid}`);
    if (refused) return refused;
    const { details } = it;
    const grant = details.grantId
      ? await provider.Grant.find(details.grantId)
      : new provider.Grant({ accountId, clientId: String(details.params.client_id) });
    if (!grant) return expired(reply);
    const asked = askedFor(details);
    if (asked.resource === undefined) {
      // Plain OAuth scopes (no resource indicators) live in the grant's "OIDC scope" bucket, so
      // addOIDCScope is the right call despite its name. Only what was asked for and is missing.
      if (asked.permissions.length) grant.addOIDCScope(asked.permissions.join(' '));
    } else {
      // An assistant (RFC 8707 resource, docs/mcp.md): the person ticks the permissions it gets,
      // and they are granted for its resource alone. Unticked ones are recorded as refused, so
      // the request is settled without them; the plain bucket is settled as refused too, so this
      // grant never yields a plain API token (the same client asking without a resource gets
      // none of these permissions without asking the person again through a new grant).
      const ticked = new Set([request.body?.permission ?? []].flat());
      const granted = asked.permissions.filter((name) => ticked.has(name));
      const refused = asked.permissions.filter((name) => !ticked.has(name));
      if (granted.length) grant.addResourceScope(asked.resource, granted.join(' '));
      if (refused.length) grant.rejectResourceScope(asked.resource, refused.join(' '));
      const plain = details.prompt.details.missingOIDCScope as string[] | undefined;
      if (plain?.length) grant.rejectOIDCScope(plain.join(' '));
    }
    const grantId = await grant.save();
    return finish(request, reply, { consent: { grantId } });
  });

  app.post<Params & Form>('/oauth/interaction/:uid/abort', hide, async (request, reply) => {
    const it = await load(request, reply);
    if (!it) return expired(reply);
    const refused = refuseForm(request, reply, config, request.body?.csrf, `/oauth/interaction/${request.params.uid}`);
    if (refused) return refused;
    return finish(request, reply, { error: 'access_denied', error_description: 'The person denied the request.' });
  });
}
