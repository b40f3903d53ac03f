// The tables of connected services (src/services/): the services, their groups, the deliveries of
// posts to them, connections being made, and what polling brings in. Times are epoch
// milliseconds, as in every table.

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
  /** Trackers: SHA-256 (hex) of the ingest token; null for other types. */
  ingest_token_hash: string | null;
  /** What the connector keeps between deliveries (a Bluesky session), sealed like `secrets`; null if none (migration 0016). */
  state?: string | null;
  /** Trackers (migration 0035): when points last arrived (ms), and how many on the owner's local day `points_day`. */
  last_point_at?: number | null;
  points_day?: number | null;
  points_today?: number;
  /** Trackers: the last refused request that carried a token the tracker had, and why. */
  refused_at?: number | null;
  refused_reason?: string | null;
  /** Trackers: SHA-256 of the token the newest one replaced. */
  previous_token_hash?: string | null;
}

/** Waypost's registration as an app on a person's server, kept for the next connection (migration 0053). */
export interface ServiceAppRegistrationsTable {
  user_id: string;
  /** The server's origin. */
  server: string;
  redirect_uri: string;
  scopes: string;
  client_id: string;
  /** Sealed: the client secret. */
  client_secret: string;
  created_at: number;
}

/** A service being connected through its server's sign-in (migration 0043). */
export interface ServiceConnectionsTable {
  user_id: string;
  /** SHA-256 (hex) of the OAuth `state`. */
  state_hash: string;
  type: string;
  service_id: string | null;
  name: string | null;
  /** JSON: the settings besides the secrets. */
  config: string;
  /** Sealed JSON: client credentials, PKCE verifier, token endpoint. */
  pending: string;
  created_at: number;
  expires_at: number;
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
  /** The target's own id for the post (a Bluesky at:// URI, a Mastodon status id; migration 0016). */
  remote_id?: string | null;
  last_error: string | null;
  /** How sending the post's latest edit went (migration 0040); null when it was never edited. */
  edit_status?: EditStatus | null;
  edit_error?: string | null;
  created_at: number;
  updated_at: number;
}

export type EditStatus = 'pending' | 'delivered' | 'failed' | 'unsupported';

/** A polling service's state (migration 0015, src/services/polling/). */
export interface ServicePollsTable {
  user_id: string;
  service_id: string;
  /** Conditional GET validators of the last 200 answer. */
  etag: string | null;
  last_modified: string | null;
  /** Where the next poll starts (Mastodon: the newest status id seen). */
  cursor: string | null;
  /** Polls in a row that failed; 0 after one that worked. */
  failures: number;
  polled_at: number;
}

/** Every entry a polling service has shown, once (migration 0015). */
export interface ImportedEntriesTable {
  user_id: string;
  service_id: string;
  key: string;
  url: string | null;
  /** The post it became; null when it was seen but not imported. */
  post_id: string | null;
  created_at: number;
}
