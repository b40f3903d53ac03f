// GET /permissions and DELETE /permissions/<permission> (docs/api.md "Permissions").
import type Provider from 'oidc-provider';
import type { Db } from '../db/database.ts';
import type { Auth } from '../core/caller.ts';
import { notFound } from '../core/errors.ts';
import { dropPermission } from './bearer.ts';
import { listTokenRowsOfGrant, updatePayload } from './oauth.repo.ts';
import { PERMISSION_NAMES, PERMISSIONS, isPermission } from '../core/permissions.ts';
import type { PermissionView } from './permissions.schemas.ts';

export function listPermissions(auth: Auth): PermissionView[] {
  return PERMISSION_NAMES.map((name) => ({
    name,
    description: PERMISSIONS[name],
    granted: auth.permissions.has(name),
  }));
}

/**
 * Drops a permission from the calling token's grant. The bearer check already intersects token
 * and grant scopes, and refreshes filter by the grant; the stored scope of the grant's access
 * and refresh tokens is rewritten too, so introspection tells the same story.
 */
export async function withdrawPermission(provider: Provider, db: Db, auth: Auth, name: string): Promise<void> {
  if (!isPermission(name)) throw notFound(`There is no permission "${name}".`);
  await dropPermission(provider, auth.grantId, name);
  for (const row of await listTokenRowsOfGrant(db, auth.grantId)) {
    const payload = JSON.parse(row.payload) as { scope?: string };
    const scopes = (payload.scope ?? '').split(' ');
    if (!scopes.includes(name)) continue;
    payload.scope = scopes.filter((scope) => scope !== name).join(' ');
    await updatePayload(db, row.kind, row.id, JSON.stringify(payload));
  }
}
