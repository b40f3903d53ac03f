// Real access tokens for tests: issued by the app's own OAuth server (oidc-provider), stored
// hashed like any other, resolved by the same bearer hook. Faster than driving the browser
// flow: one client per app, then one Grant and one AccessToken per call.
import type { FastifyInstance } from 'fastify';
import { saveClient } from '../src/oauth/oauth.repo.ts';
import type { Permission } from '../src/core/permissions.ts';
import type { TestApp } from './helpers.ts';

const TEST_CLIENT_ID = 'test-client';
const clients = new WeakMap<FastifyInstance, Promise<void>>();

function ensureClient(t: TestApp): Promise<void> {
  let ready = clients.get(t.app);
  if (ready === undefined) {
    ready = saveClient(t.database.db, TEST_CLIENT_ID, {
      client_id: TEST_CLIENT_ID,
      client_name: 'Test client',
      redirect_uris: ['http://127.0.0.1/callback'],
      token_endpoint_auth_method: 'none',
    });
    clients.set(t.app, ready);
  }
  return ready;
}

/**
 * An access token for `user` with exactly `permissions`, as if the user had approved a test
 * app for them. Each call makes a new grant, so dropping a permission from one token's grant
 * leaves the others alone.
 */
export async function tokenFor(t: TestApp, user: { id: string }, permissions: Permission[]): Promise<string> {
  const provider = t.app.oauthProvider;
  await ensureClient(t);
  const client = await provider.Client.find(TEST_CLIENT_ID);
  if (!client) throw new Error('the test client is missing');
  const scope = permissions.join(' ');
  const grant = new provider.Grant({ accountId: user.id, clientId: TEST_CLIENT_ID });
  if (scope) grant.addOIDCScope(scope);
  const grantId = await grant.save();
  const token = new provider.AccessToken({ accountId: user.id, client, grantId, gty: 'authorization_code', scope });
  return token.save();
}

/**
 * An access token bound to `resource` (RFC 8707), as an assistant gets one for the MCP endpoint
 * (src/oauth/resources.ts): the grant holds `permissions` for that resource alone.
 */
export async function boundTokenFor(
  t: TestApp,
  user: { id: string },
  permissions: Permission[],
  resource: string,
): Promise<string> {
  const provider = t.app.oauthProvider;
  await ensureClient(t);
  const client = await provider.Client.find(TEST_CLIENT_ID);
  if (!client) throw new Error('the test client is missing');
  const scope = permissions.join(' ');
  const grant = new provider.Grant({ accountId: user.id, clientId: TEST_CLIENT_ID });
  if (scope) grant.addResourceScope(resource, scope);
  const grantId = await grant.save();
  const { ResourceServer } = provider as unknown as {
    ResourceServer: new (identifier: string, info: { scope: string; accessTokenFormat: 'opaque' }) => unknown;
  };
  const resourceServer = new ResourceServer(resource, { scope, accessTokenFormat: 'opaque' });
  const token = new provider.AccessToken({
    accountId: user.id,
    client,
    grantId,
    gty: 'authorization_code',
    scope,
    resourceServer,
  } as ConstructorParameters<typeof provider.AccessToken>[0]);
  return token.save();
}
