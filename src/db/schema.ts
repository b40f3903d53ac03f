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

export interface Tables {
  users: UsersTable;
  setup_tokens: SetupTokensTable;
}
