// The oidc-provider storage adapter (its seven-method interface) over the oauth_entities table.
//
// Bearer values (access tokens, refresh tokens, codes, session cookies, registration access
// tokens) are opaque random strings that oidc-provider uses as the model id AND copies into the
// payload as `jti`. We store sha256(id) as the key and drop `jti` from the stored payload;
// find() hashes the presented value and puts it back. A copy of the table holds no usable token
// (docs/design.md "Data model": bearer values are stored only as hashes).
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Db } from '../db/database.ts';
import { sha256Hex } from '../lib/crypto.ts';
import { nowMs } from '../lib/time.ts';
import {
  consumeEntity,
  deleteEntitiesOfGrant,
  deleteEntity,
  findEntity,
  grantIdOf,
  keepClient,
  upsertEntity,
  type EntityRow,
} from './oauth.repo.ts';

export const HASHED_KINDS: ReadonlySet<string> = new Set([
  'AccessToken',
  'RefreshToken',
  'AuthorizationCode',
  'RegistrationAccessToken',
  'Session',
]);

export interface AdapterOptions {
  /** Called when consume() finds the code or refresh token already used (a concurrent redemption). */
  onReplay: (kind: string, grantId: string | null) => Promise<void>;
  /** The secret of a confidential client, derived from the server key: never stored. */
  clientSecret: (clientId: string) => string;
  /** How long an app that registered itself lives unless a person approves it (a Grant). */
  unapprovedClientTtlMs: number;
}

export type AdapterClass = new (kind: string) => Adapter;

export function createAdapter(db: Db, { onReplay, clientSecret, unapprovedClientTtlMs }: AdapterOptions): AdapterClass {
  return class DatabaseAdapter implements Adapter {
    readonly kind: string;
    readonly hashed: boolean;

    constructor(kind: string) {
      this.kind = kind;
      this.hashed = HASHED_KINDS.has(kind);
    }

    key(id: string): string {
      return this.hashed ? sha256Hex(id) : id;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      const stored: AdapterPayload = { ...payload };
      if (this.hashed) delete stored.jti;
      delete stored.client_secret;
      const now = nowMs();
      // oidc-provider stores a Client only when an app registers itself (the operator's are
      // saved by clients.logic.ts, without an expiry). It lives a day unless a person approves
      // it: the first Grant for it clears the expiry, and housekeeping removes it otherwise.
      const expiresAt = expiresIn
        ? now + expiresIn * 1000
        : this.kind === 'Client'
          ? now + unapprovedClientTtlMs
          : null;
      await upsertEntity(db, {
        kind: this.kind,
        id: this.key(id),
        payload: JSON.stringify(stored),
        // A Grant row carries its own id as grant_id, so one DELETE by grant_id removes everything.
        grant_id: payload.grantId ?? (this.kind === 'Grant' ? id : null),
        account_id: payload.accountId ?? null,
        client_id: payload.clientId ?? (this.kind === 'Client' ? (payload.client_id ?? null) : null),
        uid: payload.uid ?? null,
        user_code: payload.userCode ?? null,
        expires_at: expiresAt,
      });
      if (this.kind === 'Grant' && typeof payload.clientId === 'string') await keepClient(db, payload.clientId, now);
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      const row = await findEntity(db, this.kind, 'id', this.key(id), nowMs());
      if (!row) return undefined;
      const payload = revive(row);
      if (this.hashed) payload.jti = id;
      if (this.kind === 'Client' && payload.token_endpoint_auth_method === 'client_secret_basic') {
        payload.client_secret = clientSecret(id);
      }
      return payload;
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      // Only Session uses this. Its jti (the cookie value) is unknown here, which is fine:
      // oidc-provider reads only accountId and grant ids from a session found by uid.
      const row = await findEntity(db, this.kind, 'uid', uid, nowMs());
      return row ? revive(row) : undefined;
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      const row = await findEntity(db, this.kind, 'user_code', userCode, nowMs());
      return row ? revive(row) : undefined;
    }

    async consume(id: string): Promise<void> {
      // oidc-provider checks `consumed` after find() and then calls consume(): two concurrent
      // redemptions could both pass that check. The conditional update lets only one win.
      if (await consumeEntity(db, this.kind, this.key(id), nowMs())) return;
      await onReplay(this.kind, await grantIdOf(db, this.kind, this.key(id)));
    }

    async destroy(id: string): Promise<void> {
      await deleteEntity(db, this.kind, this.key(id));
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await deleteEntitiesOfGrant(db, this.kind, grantId);
    }
  };
}

function revive(row: EntityRow): AdapterPayload {
  const payload = JSON.parse(row.payload) as AdapterPayload;
  // oidc-provider detects replays through a truthy `consumed` (epoch seconds) in the payload.
  if (row.consumed_at !== null) payload.consumed = Math.floor(Number(row.consumed_at) / 1000);
  return payload;
}
