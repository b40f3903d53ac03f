// Table types for Kysely. Rows never leave the repo layer (STYLE.md 8). Times are integer
// milliseconds since the Unix epoch.

export interface UsersTable {
  id: string;
  username: string;
  /** Lower-cased username: the unique key, so names are unique regardless of case. */
  username_key: string;
  password_hash: string;
  display_name: string;
  bio: string;
  created_at: number;
  updated_at: number;
}

export interface SetupTokensTable {
  token_hash: string;
  created_at: number;
  expires_at: number;
}

export interface ServicesTable {
  id: string;
  user_id: string;
  type: string;
  name: string;
  /** 1 or 0 */
  enabled: number;
  /** JSON: the non-secret configuration. */
  config: string;
  /** The secret configuration, JSON encrypted with AES-256-GCM. */
  secrets: string;
  status: string;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}

export interface ServiceGroupsTable {
  id: string;
  user_id: string;
  name: string;
  created_at: number;
}

export interface ServiceGroupMembersTable {
  user_id: string;
  group_id: string;
  service_id: string;
  added_at: number;
}

export interface DeliveriesTable {
  id: string;
  user_id: string;
  post_id: string;
  service_id: string;
  status: 'pending' | 'delivered' | 'failed' | 'cancelled';
  attempts: number;
  remote_url: string | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}

export interface JobsTable {
  id: string;
  kind: string;
  ref: string | null;
  /** JSON */
  payload: string;
  status: 'queued' | 'running' | 'done' | 'failed' | 'cancelled';
  attempts: number;
  max_attempts: number;
  run_at: number;
  locked_by: string | null;
  locked_until: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}

export interface IdempotencyKeysTable {
  user_id: string;
  scope: string;
  key: string;
  fingerprint: string;
  /** JSON of the first response; null while that request is in flight. */
  response: string | null;
  created_at: number;
  expires_at: number;
}

export interface Tables {
  users: UsersTable;
  setup_tokens: SetupTokensTable;
  services: ServicesTable;
  service_groups: ServiceGroupsTable;
  service_group_members: ServiceGroupMembersTable;
  deliveries: DeliveriesTable;
  jobs: JobsTable;
  idempotency_keys: IdempotencyKeysTable;
}
