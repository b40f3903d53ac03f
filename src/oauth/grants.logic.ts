// The apps a person has authorized (their grants), for the account page.
import type { Db } from '../db/database.ts';
import { notFound } from '../core/errors.ts';
import { nowMs } from '../lib/time.ts';
import { deleteGrantEverywhere, findClientPayloads, listGrantRows } from './oauth.repo.ts';
import { PERMISSIONS, isPermission, type Permission } from '../core/permissions.ts';

export interface AuthorizedApp {
  grantId: string;
  clientId: string;
  clientName: string;
  permissions: { name: Permission; description: string }[];
  /** An AI assistant: its permissions hold at the MCP endpoint alone (docs/mcp.md). */
  assistant: boolean;
}

export async function listAuthorizedApps(db: Db, userId: string): Promise<AuthorizedApp[]> {
  const rows = await listGrantRows(db, userId, nowMs());
  const clients = await findClientPayloads(db, [
    ...new Set(rows.flatMap((row) => (row.client_id ? [row.client_id] : []))),
  ]);
  return rows.flatMap((row) => {
    const client = row.client_id ? clients.get(row.client_id) : undefined;
    if (!row.client_id || !client) return []; // the client was deleted: its grant is dead
    const grant = JSON.parse(row.payload) as { openid?: { scope?: string }; resources?: Record<string, unknown> };
    // An assistant's permissions are granted for the resource its tokens are bound to.
    const bound = Object.values(grant.resources ?? {}).filter((scope) => typeof scope === 'string');
    const scopes = [...new Set([grant.openid?.scope ?? '', ...bound].join(' ').split(' ').filter(isPermission))];
    return [
      {
        grantId: row.id,
        clientId: row.client_id,
        clientName: (JSON.parse(client) as { client_name?: string }).client_name ?? row.client_id,
        permissions: scopes.map((name) => ({ name, description: PERMISSIONS[name] })),
        assistant: grant.resources !== undefined && Object.keys(grant.resources).length > 0,
      },
    ];
  });
}

/** Revokes one of the person's grants: the grant and every token issued under it. */
export async function revokeAuthorizedApp(db: Db, userId: string, grantId: string): Promise<void> {
  const apps = await listAuthorizedApps(db, userId);
  if (!apps.some((app) => app.grantId === grantId)) throw notFound('No such authorized app.');
  await deleteGrantEverywhere(db, grantId);
}
