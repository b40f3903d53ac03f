// The resource-server side: what an access token lets its holder do right now.
import type Provider from 'oidc-provider';
import type { Db } from '../db/database.ts';
import type { BearerResolver } from '../http/auth.ts';
import type { Auth, TokenGrant } from '../core/caller.ts';
import { sha256Hex } from '../lib/crypto.ts';
import { findAuthState } from './oauth.repo.ts';
import { isPermission, type Permission } from '../core/permissions.ts';

/** Longer values are no token of ours; they are refused before any hashing or lookup. */
const MAX_TOKEN_LENGTH = 512;

/**
 * Resolves an access token through the OAuth server's own models. Effective permissions = the
 * token's scopes ∩ the grant's current scopes, so a permission the person withdrew (DELETE
 * /permissions, the account page) is gone at once for tokens already issued. A revoked grant
 * (row deleted) ends every token of it.
 */
export function bearerResolver(provider: Provider): (token: string) => Promise<TokenGrant | undefined> {
  return async (token: string): Promise<TokenGrant | undefined> => {
    if (token.length > MAX_TOKEN_LENGTH) return undefined;
    const at = await provider.AccessToken.find(token); // hashed by the adapter; expiry checked
    if (!at?.grantId || !at.accountId || !at.clientId || !at.exp) return undefined;
    const grant = await provider.Grant.find(at.grantId);
    if (!grant || grant.clientId !== at.clientId || grant.accountId !== at.accountId) return undefined;
    // A token bound to a resource (RFC 8707) holds what the grant gave for that resource; a plain
    // API token what the grant gave without one (src/oauth/resources.ts).
    const audience = typeof at.aud === 'string' ? at.aud : undefined;
    const granted = new Set((audience ? grant.getResourceScope(audience) : grant.getOIDCScope()).split(' '));
    const permissions = new Set<Permission>();
    for (const scope of at.scopes) if (isPermission(scope) && granted.has(scope)) permissions.add(scope);
    return {
      userId: at.accountId,
      clientId: at.clientId,
      grantId: at.grantId,
      permissions,
      expiresAt: at.exp * 1000,
      audience,
    };
  };
}

interface Cached {
  grant: TokenGrant;
  /** The person's `auth_version` when the grant was read. */
  version: number;
}

/**
 * Remembers what each token stands for, so a request costs one read of the person's row
 * instead of two lookups and two JSON revivals. The row's `auth_version` goes up in the same
 * transaction as any revocation or narrowing of the person's tokens (migration 0014, triggers),
 * in this process or another sharing the database: a copy made at another version is dropped
 * and the token resolved afresh, so a revoked token fails on the very next request everywhere.
 * Keys are the tokens' SHA-256; at most `size` tokens are kept, the least recently used dropped.
 */
export function cachedBearerResolver(
  db: Db,
  resolve: (token: string) => Promise<TokenGrant | undefined>,
  { size = 10_000, now = Date.now }: { size?: number; now?: () => number } = {},
): BearerResolver {
  const cache = new Map<string, Cached>();

  async function fresh(key: string, token: string): Promise<Auth | undefined> {
    const first = await resolve(token);
    if (!first) return undefined;
    const state = await findAuthState(db, first.userId);
    if (!state) return undefined;
    // Resolved again after the version was read: a revocation between the two reads is seen
    // here, and one after them has moved the version past the one kept.
    const grant = await resolve(token);
    if (!grant || grant.userId !== first.userId) return undefined;
    if (cache.size >= size) cache.delete(cache.keys().next().value!);
    cache.set(key, { grant, version: state.auth_version });
    return { ...grant, username: state.username };
  }

  return async (token: string): Promise<Auth | undefined> => {
    if (token.length > MAX_TOKEN_LENGTH) return undefined;
    const key = sha256Hex(token);
    const hit = cache.get(key);
    if (hit) {
      // The copy stays in the cache while its version is read: requests with the same token
      // that arrive meanwhile use it too, each checking the version itself. (Taking it out
      // until the read was done sent about half of the requests of an app with ten connections
      // to `fresh`: three statements more each.)
      const state = hit.grant.expiresAt > now() ? await findAuthState(db, hit.grant.userId) : undefined;
      const current = cache.get(key) === hit;
      if (current) cache.delete(key);
      if (state?.auth_version === hit.version) {
        if (current) cache.set(key, hit); // most recently used last: the Map's order is the LRU order
        return { ...hit.grant, username: state.username };
      }
    }
    return fresh(key, token);
  };
}

/**
 * Drops one permission from a grant: removed from the granted set, not recorded as "rejected"
 * (a rejected scope counts as decided, so a later request for it would silently not be granted
 * instead of asking the person again). Refreshes compute the new token's scope as grant ∩
 * refresh token scope, so every later token lacks it too.
 */
export async function dropPermission(provider: Provider, grantId: string, permission: Permission): Promise<void> {
  const grant = await provider.Grant.find(grantId);
  if (!grant) return;
  const without = (scopes: string) =>
    scopes
      .split(' ')
      .filter((scope) => scope !== permission)
      .join(' ');
  if (grant.openid?.scope) grant.openid.scope = without(grant.openid.scope);
  // An assistant's grant holds its permissions under the resource its tokens are bound to.
  for (const [resource, scopes] of Object.entries(grant.resources ?? {})) {
    if (typeof scopes === 'string') grant.resources![resource] = without(scopes);
  }
  await grant.save();
}
