// The resource-server side: what an access token lets its holder do right now.
import type Provider from 'oidc-provider';
import type { Auth, BearerResolver } from '../http/auth.ts';
import { isPermission, type Permission } from './permissions.ts';

/**
 * Resolves an access token for the auth hook. Effective permissions = the token's scopes ∩ the
 * grant's current scopes, so a permission the person withdrew (DELETE /permissions, the
 * account page) is gone at once for tokens already issued. A revoked grant (row deleted) ends
 * every token of it.
 */
export function bearerResolver(provider: Provider): BearerResolver {
  return async (token: string): Promise<Auth | undefined> => {
    if (token.length > 512) return undefined;
    const at = await provider.AccessToken.find(token); // hashed by the adapter; expiry checked
    if (!at?.grantId || !at.accountId || !at.clientId) return undefined;
    const grant = await provider.Grant.find(at.grantId);
    if (!grant || grant.clientId !== at.clientId || grant.accountId !== at.accountId) return undefined;
    const granted = new Set((grant.getOIDCScope() ?? '').split(' '));
    const permissions = new Set<Permission>();
    for (const scope of at.scopes) if (isPermission(scope) && granted.has(scope)) permissions.add(scope);
    return { userId: at.accountId, clientId: at.clientId, grantId: at.grantId, permissions };
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
  if (!grant?.openid?.scope) return;
  grant.openid.scope = grant.openid.scope
    .split(' ')
    .filter((scope) => scope !== permission)
    .join(' ');
  await grant.save();
}
