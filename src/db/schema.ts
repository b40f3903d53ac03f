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

/** Every oidc-provider model instance (src/oauth/adapter.ts). */
export interface OAuthEntitiesTable {
  kind: string;
  id: string;
  /** JSON; never holds a bearer value. */
  payload: string;
  grant_id: string | null;
  account_id: string | null;
  client_id: string | null;
  uid: string | null;
  user_code: string | null;
  expires_at: number | null;
  consumed_at: number | null;
}

export interface WebSessionsTable {
  user_id: string;
  /** SHA-256 of the session cookie's value. */
  id_hash: string;
  created_at: number;
  expires_at: number;
}

export interface SignInFailuresTable {
  key_hash: string;
  at: number;
}

export interface Tables {
  users: UsersTable;
  setup_tokens: SetupTokensTable;
  oauth_entities: OAuthEntitiesTable;
  web_sessions: WebSessionsTable;
  sign_in_failures: SignInFailuresTable;
}
