// Loopback servers that speak the protocols posts are published over, as their specifications
// define them: each checks what it is sent (paths, methods, auth, required fields, upload
// bodies) and refuses what the real server would refuse, so a connector that strays fails.
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { startReceiver, type Received, type Receiver } from './receivers.ts';

export interface Upload {
  filename: string;
  type: string;
  bytes: Buffer;
  fields: Record<string, string>;
}

/** Reads a multipart/form-data body with the platform's own parser (as a server framework would). */
export async function readMultipart(request: Received): Promise<Upload | null> {
  const type = request.headers['content-type'] ?? '';
  if (!type.startsWith('multipart/form-data')) return null;
  const form = await new Request('http://x/', {
    method: 'POST',
    headers: { 'content-type': type },
    body: new Uint8Array(request.raw),
  }).formData();
  const file = form.get('file');
  if (!(file instanceof File)) return null;
  const fields: Record<string, string> = {};
  for (const [name, value] of form) if (typeof value === 'string') fields[name] = value;
  return { filename: file.name, type: file.type, bytes: Buffer.from(await file.arrayBuffer()), fields };
}

function json(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

// Mastodon (docs.joinmastodon.org/methods/): instance, media (v2 upload, v1 polling), statuses,
// verify_credentials. Text length by its rule: links count as `characters_reserved_per_url`.
export interface FakeMastodon {
  receiver: Receiver;
  url: string;
  uploads: (Upload & { id: string; description: string | undefined })[];
  statuses: Record<string, unknown>[];
  /** Each status's edits, by its id, in the order they came. */
  edits: Record<string, { status?: string; media_ids?: string[] }[]>;
  /** Apps registered through POST /api/v1/apps, as they were sent. */
  apps: { client_name: string; redirect_uris: string; scopes: string; website: string; client_id: string }[];
  /** Client ids of registered apps the server no longer knows (an admin removed them). */
  removedApps: string[];
  /** Apps' own tokens (the client credentials grant): those given out, and those revoked. */
  appTokens: { issued: string[]; revoked: string[] };
  /** What the authorization page was asked, each time it was shown. */
  authorizations: Record<string, string>[];
  /** GET /api/v1/media/:id answers 206 this many times per medium before 200. */
  processingPolls: number;
  maxCharacters: number;
  close(): Promise<void>;
}

export async function startMastodon(
  token: string,
  options: { maxCharacters?: number; metadata?: boolean } = {},
): Promise<FakeMastodon> {
  const receiver = await startReceiver();
  const polls = new Map<string, number>();
  const fake: FakeMastodon = {
    receiver,
    url: receiver.url,
    uploads: [],
    statuses: [],
    edits: {},
    apps: [],
    removedApps: [],
    appTokens: { issued: [], revoked: [] },
    authorizations: [],
    processingPolls: 1,
    maxCharacters: options.maxCharacters ?? 500,
    close: () => receiver.close(),
  };
  const codes = new Map<string, { clientId: string; redirectUri: string; challenge: string | null }>();
  const length = (text: string) => [...text.replace(/https?:\/\/[^\s]+/g, 'x'.repeat(23))].length;
  receiver.answer = (request, response) => {
    void (async () => {
      const path = request.path;
      const oauth = mastodonOAuth(fake, token, codes, options.metadata ?? true);
      if (oauth(request, response)) return;
      if (request.method === 'GET' && path === '/api/v2/instance') {
        return json(response, 200, {
          domain: '127.0.0.1',
          configuration: {
            statuses: { max_characters: fake.maxCharacters, max_media_attachments: 4, characters_reserved_per_url: 23 },
          },
        });
      }
      if (request.headers.authorization !== `Bearer ${token}`) {
        return json(response, 401, { error: 'The access token is invalid' });
      }
      if (request.method === 'GET' && path === '/api/v1/accounts/verify_credentials') {
        return json(response, 200, { id: '1', username: 'alice', acct: 'alice' });
      }
      if (request.method === 'POST' && path === '/api/v2/media') {
        const upload = await readMultipart(request);
        if (!upload) return json(response, 422, { error: 'Validation failed: File must be a file' });
        const id = String(100 + fake.uploads.length);
        fake.uploads.push({ ...upload, id, description: upload.fields.description });
        polls.set(id, fake.processingPolls);
        const processing = fake.processingPolls > 0;
        return json(response, processing ? 202 : 200, {
          id,
          type: upload.type.split('/')[0],
          url: processing ? null : `${receiver.url}/files/${id}`,
          description: upload.fields.description ?? null,
        });
      }
      const media = /^\/api\/v1\/media\/(\w+)$/.exec(path);
      if (request.method === 'GET' && media) {
        const left = polls.get(media[1] ?? '');
        if (left === undefined) return json(response, 404, { error: 'Record not found' });
        polls.set(media[1] ?? '', left - 1);
        return json(response, left > 0 ? 206 : 200, { id: media[1], url: left > 0 ? null : `${receiver.url}/f` });
      }
      if (request.method === 'POST' && path === '/api/v1/statuses') {
        if (!request.headers['idempotency-key']) return json(response, 400, { error: 'no Idempotency-Key' });
        const body = JSON.parse(request.body) as { status?: string; media_ids?: string[]; visibility?: string };
        const mediaIds = body.media_ids ?? [];
        if (!body.status && mediaIds.length === 0)
          return json(response, 422, { error: "Validation failed: Text can't be blank" });
        if (body.status && length(body.status) > fake.maxCharacters) {
          return json(response, 422, {
            error: `Validation failed: Text character limit of ${fake.maxCharacters} exceeded`,
          });
        }
        if (mediaIds.some((id) => (polls.get(id) ?? 1) > 0)) {
          return json(response, 422, {
            error: 'Cannot attach files that have not finished processing. Try again in a moment!',
          });
        }
        fake.statuses.push(body);
        const id = String(1000 + fake.statuses.length);
        fake.edits[id] = [];
        return json(response, 200, {
          id,
          uri: `${receiver.url}/users/alice/statuses/${id}`,
          url: `${receiver.url}/@alice/${id}`,
        });
      }
      // An edit (docs.joinmastodon.org/methods/statuses/#edit): GET the status, PUT its new text.
      const status = /^\/api\/v1\/statuses\/(\d+)$/.exec(path);
      const index = status ? Number(status[1]) - 1001 : -1;
      const made = fake.statuses[index];
      if (status && made && request.method === 'GET') {
        const ids = (made.media_ids as string[] | undefined) ?? [];
        return json(response, 200, { id: status[1], media_attachments: ids.map((id) => ({ id })) });
      }
      if (status && made && request.method === 'PUT') {
        const body = JSON.parse(request.body) as { status?: string; media_ids?: string[] };
        if (body.status && length(body.status) > fake.maxCharacters) {
          return json(response, 422, {
            error: `Validation failed: Text character limit of ${fake.maxCharacters} exceeded`,
          });
        }
        fake.edits[status[1]!]!.push(body);
        return json(response, 200, { id: status[1] });
      }
      return json(response, 404, { error: 'Record not found' });
    })();
  };
  return fake;
}

/**
 * Mastodon's side of signing in (docs.joinmastodon.org/client/token/, methods/apps/, methods/oauth/):
 * RFC 8414 metadata (Mastodon 4.3+, with PKCE S256) unless `metadata` is false (an older server:
 * fixed paths, no PKCE); POST /api/v1/apps registering a client for exact redirect URIs; an
 * authorization page with Authorize and Deny; POST /oauth/token exchanging a code once, for its
 * client, redirect URI and (with PKCE) verifier, for the fake's token, or giving a known app its
 * own token (client credentials); POST /oauth/revoke. An app in `removedApps` is unknown to all of
 * them. Answers true when it took the request.
 */
function mastodonOAuth(
  fake: FakeMastodon,
  token: string,
  codes: Map<string, { clientId: string; redirectUri: string; challenge: string | null }>,
  metadata: boolean,
) {
  /** A registered app the server still knows. */
  const known = (clientId: string | undefined) =>
    fake.apps.find((app) => app.client_id === clientId && !fake.removedApps.includes(app.client_id));
  return (request: Received, response: ServerResponse): boolean => {
    const url = new URL(request.path, fake.url);
    const form = () => Object.fromEntries(new URLSearchParams(request.body));
    if (request.method === 'GET' && url.pathname === '/.well-known/oauth-authorization-server') {
      if (!metadata) json(response, 404, { error: 'Not found' });
      else {
        json(response, 200, {
          issuer: `${fake.url}/`,
          authorization_endpoint: `${fake.url}/oauth/authorize`,
          token_endpoint: `${fake.url}/oauth/token`,
          revocation_endpoint: `${fake.url}/oauth/revoke`,
          app_registration_endpoint: `${fake.url}/api/v1/apps`,
          scopes_supported: ['read', 'write', 'read:accounts', 'read:statuses', 'write:statuses', 'write:media'],
          response_types_supported: ['code'],
          code_challenge_methods_supported: ['S256'],
          grant_types_supported: ['authorization_code', 'client_credentials'],
        });
      }
      return true;
    }
    if (request.method === 'POST' && url.pathname === '/api/v1/apps') {
      const body = form();
      if (!body.client_name || !body.redirect_uris) {
        json(response, 422, { error: "Validation failed: Name can't be blank" });
        return true;
      }
      const app = {
        client_name: body.client_name,
        redirect_uris: body.redirect_uris,
        scopes: body.scopes ?? 'read',
        website: body.website ?? '',
        client_id: `client-${fake.apps.length + 1}`,
      };
      fake.apps.push(app);
      json(response, 200, {
        id: String(fake.apps.length),
        name: app.client_name,
        redirect_uri: app.redirect_uris,
        client_id: app.client_id,
        client_secret: `secret-of-${app.client_id}`,
      });
      return true;
    }
    if (url.pathname === '/oauth/authorize') {
      const asked = request.method === 'GET' ? Object.fromEntries(url.searchParams) : form();
      const app = known(asked.client_id);
      if (!app || asked.redirect_uri !== app.redirect_uris || asked.response_type !== 'code') {
        response
          .writeHead(400, { 'content-type': 'text/html' })
          .end('<h1>The redirect URI included is not valid.</h1>');
        return true;
      }
      if (request.method === 'GET') {
        fake.authorizations.push(asked);
        const hidden = Object.entries(asked)
          .map(([name, value]) => `<input type="hidden" name="${name}" value="${value.replaceAll('"', '&quot;')}">`)
          .join('');
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(
          `<!doctype html><html lang="en"><title>Authorize</title><main><h1>Authorize ${app.client_name}?</h1>
          <p>It asks for: ${asked.scope ?? ''}</p><form method="post" action="/oauth/authorize">${hidden}
          <button name="decision" value="allow">Authorize</button><button name="decision" value="deny">Deny</button>
          </form></main></html>`,
        );
        return true;
      }
      const back = new URL(app.redirect_uris);
      if (asked.decision === 'allow') {
        const code = `code-${codes.size + 1}`;
        codes.set(code, {
          clientId: app.client_id,
          redirectUri: app.redirect_uris,
          challenge: asked.code_challenge_method === 'S256' ? (asked.code_challenge ?? null) : null,
        });
        back.searchParams.set('code', code);
      } else back.searchParams.set('error', 'access_denied');
      if (asked.state) back.searchParams.set('state', asked.state);
      response.writeHead(302, { location: back.href }).end();
      return true;
    }
    if (request.method === 'POST' && url.pathname === '/oauth/token' && form().grant_type === 'client_credentials') {
      // An app's own token (RFC 6749 4.4), for a client the server knows, within its scopes.
      const body = form();
      const app = known(body.client_id);
      const scopes = new Set(app?.scopes.split(' '));
      if (
        !app ||
        body.client_secret !== `secret-of-${app.client_id}` ||
        !body.scope?.split(' ').every((s) => scopes.has(s))
      ) {
        json(response, 401, { error: 'invalid_client', error_description: 'Client authentication failed' });
        return true;
      }
      const appToken = `app-token-${fake.appTokens.issued.length + 1}`;
      fake.appTokens.issued.push(appToken);
      json(response, 200, { access_token: appToken, token_type: 'Bearer', scope: body.scope, created_at: 1 });
      return true;
    }
    if (request.method === 'POST' && url.pathname === '/oauth/revoke') {
      // RFC 7009: 200 whether or not the token was one of the client's.
      const body = form();
      const app = known(body.client_id);
      if (
        app &&
        body.client_secret === `secret-of-${app.client_id}` &&
        fake.appTokens.issued.includes(body.token ?? '')
      ) {
        fake.appTokens.revoked.push(body.token!);
      }
      json(response, 200, {});
      return true;
    }
    if (request.method === 'POST' && url.pathname === '/oauth/token') {
      const body = form();
      const grant = codes.get(body.code ?? '');
      const verifier = body.code_verifier ?? '';
      const pkce = grant?.challenge
        ? createHash('sha256').update(verifier).digest('base64url') === grant.challenge
        : !body.code_verifier;
      if (
        body.grant_type !== 'authorization_code' ||
        !grant ||
        grant.clientId !== body.client_id ||
        body.client_secret !== `secret-of-${grant.clientId}` ||
        grant.redirectUri !== body.redirect_uri ||
        !pkce
      ) {
        json(response, 400, {
          error: 'invalid_grant',
          error_description: 'The provided authorization grant is invalid',
        });
        return true;
      }
      codes.delete(body.code ?? '');
      json(response, 200, { access_token: token, token_type: 'Bearer', scope: body.scope ?? 'read', created_at: 1 });
      return true;
    }
    return false;
  };
}

// Micropub (www.w3.org/TR/micropub/): `q=config` naming a media endpoint or not, the media
// endpoint (multipart `file`, 201 with Location), and create in form or JSON syntax.
export interface FakeMicropub {
  receiver: Receiver;
  endpoint: string;
  files: Upload[];
  /** Each create, as its syntax gave it: form fields (repeated ones as arrays) or the JSON object. */
  entries: { syntax: 'form' | 'json'; body: unknown }[];
  /** Each update (3.4): the entry's URL and what it replaced. */
  updates: { url: string; replace: unknown }[];
  close(): Promise<void>;
}

export async function startMicropub(token: string, options: { mediaEndpoint: boolean }): Promise<FakeMicropub> {
  const receiver = await startReceiver();
  const fake: FakeMicropub = {
    receiver,
    endpoint: `${receiver.url}/micropub`,
    files: [],
    entries: [],
    updates: [],
    close: () => receiver.close(),
  };
  receiver.answer = (request, response) => {
    void (async () => {
      if (request.headers.authorization !== `Bearer ${token}`) {
        return json(response, 401, { error: 'unauthorized' });
      }
      if (request.method === 'GET' && request.path === '/micropub?q=config') {
        return json(response, 200, options.mediaEndpoint ? { 'media-endpoint': `${receiver.url}/media` } : {});
      }
      if (request.method === 'POST' && request.path === '/media' && options.mediaEndpoint) {
        const upload = await readMultipart(request);
        if (!upload) return json(response, 400, { error: 'invalid_request' });
        fake.files.push(upload);
        return response.writeHead(201, { location: `/files/${fake.files.length}` }).end();
      }
      if (request.method === 'POST' && request.path === '/micropub') {
        const type = request.headers['content-type'] ?? '';
        if (type === 'application/json') {
          const body = JSON.parse(request.body) as { type?: unknown; properties?: unknown; action?: unknown };
          // An update (3.4): replace a property of an entry made here.
          if (body.action === 'update') {
            const update = body as { url?: unknown; replace?: unknown };
            const entry = typeof update.url === 'string' ? /\/entries\/(\d+)$/.exec(update.url) : null;
            if (!entry || !fake.entries[Number(entry[1]) - 1]) return json(response, 400, { error: 'invalid_request' });
            fake.updates.push({ url: update.url as string, replace: update.replace });
            return response.writeHead(204).end();
          }
          if (!Array.isArray(body.type) || typeof body.properties !== 'object') {
            return json(response, 400, { error: 'invalid_request' });
          }
          fake.entries.push({ syntax: 'json', body });
        } else if (type === 'application/x-www-form-urlencoded') {
          const form: Record<string, string | string[]> = {};
          for (const [name, value] of new URLSearchParams(request.body)) {
            const existing = form[name];
            form[name] = existing === undefined ? value : [existing, value].flat();
          }
          if (form.h !== 'entry') return json(response, 400, { error: 'invalid_request' });
          fake.entries.push({ syntax: 'form', body: form });
        } else return json(response, 415, { error: 'invalid_request' });
        return response.writeHead(201, { location: `/entries/${fake.entries.length}` }).end();
      }
      return json(response, 404, { error: 'not_found' });
    })();
  };
  return fake;
}
