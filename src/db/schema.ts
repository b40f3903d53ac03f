// Table types for Kysely. Rows never leave the repo layer (docs/conventions.md 8). Times are integer
// milliseconds since the Unix epoch.
import type { Generated } from 'kysely';

import type {
  PlacesTable,
  TripsTable,
  VisitCorrectionsTable,
  VisitMarksTable,
  VisitSpansTable,
  VisitsTable,
} from './schema.visits.ts';
import type {
  DeliveriesTable,
  ImportedEntriesTable,
  ServiceAppRegistrationsTable,
  ServiceConnectionsTable,
  ServiceGroupMembersTable,
  ServiceGroupsTable,
  ServicePollsTable,
  ServicesTable,
} from './schema.services.ts';

/** A medium a post shows (migration 0039): a mirror of `posts.media_ids`. */
export interface PostMediaTable {
  user_id: string;
  medium_id: string;
  post_id: string;
}

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
  /** Goes up with every change of the user's public items or of their public location precision (migration 0006, triggers). */
  items_version: Generated<number>;
  /** Public items per kind, kept by the same triggers. */
  public_posts: Generated<number>;
  public_media: Generated<number>;
  public_locations: Generated<number>;
  /** Goes up with every revocation or narrowing of the user's tokens and grants (migration 0014, triggers). */
  auth_version: Generated<number>;
}

export interface SetupTokensTable {
  token_hash: string;
  created_at: number;
  expires_at: number;
}

export type ScopeValue = 'public' | 'private';

/** The columns posts, media and locations share. */
export interface ItemColumns {
  user_id: string;
  id: string;
  scope: ScopeValue;
  time: number;
  created_at: number;
}

export interface PostsTable extends ItemColumns {
  text: string;
  /** JSON array of medium ids. */
  media_ids: string;
  lat: number | null;
  lon: number | null;
  source: string | null;
  /** Where an imported post lives outside (migration 0015); null for posts written here. */
  source_url?: string | null;
}

export interface MediaTable extends ItemColumns {
  kind: string;
  mime_type: string;
  size: number;
  sha256: string;
  width: number | null;
  height: number | null;
  duration: number | null;
  lat: number | null;
  lon: number | null;
  caption: string;
  /** 1 when a WebP thumbnail exists (images), 0 otherwise. */
  has_thumbnail: number;
  source: string | null;
  /** Where `lat`/`lon` came from (migration 0033): the file (`exif`), the history, or nowhere. */
  location_source?: 'exif' | 'history' | null;
  /** The name the file was uploaded under (migration 0041); null when it came another way. */
  file_name?: string | null;
}

/** A public copy's facts, by the hash of the original it was made from (migration 0032). */
export interface PublicCopiesTable {
  sha256: string;
  copy_sha256: string;
  copy_size: number;
}

export interface LocationsTable extends ItemColumns {
  lat: number;
  lon: number;
  alt: number | null;
  accuracy: number | null;
  speed: number | null;
  heading: number | null;
  source: string | null;
  /** The import that stored the point (migration 0011); null for points from anywhere else. */
  import_id?: string | null;
  /**
   * 1 when a privacy zone hides the point (migration 0019, src/privacy/zones.ts). Every insert
   * sets it from the person's zones in its own transaction (src/privacy/places.ts
   * `hideRulesForWrite`); the database default, 0, is only for rows from before the zones.
   */
  hidden?: number;
}

/** Derived from `locations` by the triggers of migration 0012 (docs/history.md). */
export interface LocationVersionsTable {
  user_id: string;
  version: number;
}

export interface LocationCellsTable {
  user_id: string;
  level: number;
  cx: number;
  cy: number;
  points: number;
}

export interface LocationDirtyTable {
  user_id: string;
  bucket: number;
}

export interface LocationBucketsTable {
  user_id: string;
  bucket: number;
  points: number;
  distance_m: number;
  min_lat: number;
  max_lat: number;
  min_lon: number;
  max_lon: number;
  min_lon360: number;
  max_lon360: number;
  last_time: number;
  last_lat: number;
  last_lon: number;
}

/** SQLite: the level-18 cells of points written since the last fold (migration 0026). */
export interface LocationCellLogTable {
  user_id: string;
  cx: number;
  cy: number;
  points: number;
}

/** A person's quarter hours summed per day of their time zone (migration 0021). */
export type LocationDaysTable = { day: number } & Omit<
  LocationBucketsTable,
  'bucket' | 'last_time' | 'last_lat' | 'last_lon'
>;

export interface LocationDayZonesTable {
  user_id: string;
  zone: string;
}

export interface LocationDayMarksTable {
  user_id: string;
  day: number;
}

export interface UserSettingsTable {
  user_id: string;
  default_post_scope: ScopeValue;
  default_media_scope: ScopeValue;
  default_location_scope: ScopeValue;
  timezone: string;
  public_location_precision_m: number;
  /** JSON array of {name, lat, lon, radius_m} (migration 0019, src/privacy/zones.ts). */
  privacy_zones: string;
  updated_at: number;
}

export interface ViewsTable {
  user_id: string;
  id: string;
  name: string;
  description: string;
  /** JSON array of item tables. */
  kinds: string;
  /** JSON object; times in milliseconds. */
  filters: string;
  scope: ScopeValue;
  created_at: number;
  updated_at: number;
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

/** One counter of sign-in attempts (src/account/sign-in-limits.repo.ts). */
export interface SignInLimitsTable {
  /** HMAC of the key: account and address, account, or address. */
  key_hash: string;
  window_start: number;
  failures: number;
  delay_ms: number;
  next_at: number;
  expires_at: number;
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

export interface ImportsTable {
  id: string;
  user_id: string;
  status: 'queued' | 'running' | 'done' | 'failed' | 'cancelled';
  format: string;
  filename: string;
  size: number;
  scope: ScopeValue;
  file_path: string;
  /** 1 when the file is our copy in the data folder (deleted with the import), 0 for an operator's file. */
  file_owned: number;
  progress: number;
  points_seen: number;
  points_stored: number;
  duplicates: number;
  skipped: number;
  checkpoint: number;
  /** JSON array of {where, message}, at most 100. */
  errors: string;
  /** A restore's counts per kind of object, JSON (migration 0020); null for location files. */
  items?: string | null;
  /** Times the import's child process died on it (migration 0029); at two the import fails. */
  worker_deaths?: number;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  updated_at: number;
}

/** One searchable item, kept by the triggers of migration 0034 (src/search/). */
export interface SearchDocsTable {
  user_id: string;
  /** The item's table: `posts`, `media` or `places`. */
  kind: 'posts' | 'media' | 'places';
  item_id: string;
  scope: ScopeValue;
  time: number;
  body: string;
}

export interface Tables {
  users: UsersTable;
  setup_tokens: SetupTokensTable;
  posts: PostsTable;
  media: MediaTable;
  public_copies: PublicCopiesTable;
  locations: LocationsTable;
  location_versions: LocationVersionsTable;
  location_cells: LocationCellsTable;
  location_dirty: LocationDirtyTable;
  location_buckets: LocationBucketsTable;
  location_cell_log: LocationCellLogTable;
  location_days: LocationDaysTable;
  location_day_zones: LocationDayZonesTable;
  location_day_marks: LocationDayMarksTable;
  user_settings: UserSettingsTable;
  views: ViewsTable;
  oauth_entities: OAuthEntitiesTable;
  web_sessions: WebSessionsTable;
  sign_in_limits: SignInLimitsTable;
  services: ServicesTable;
  service_connections: ServiceConnectionsTable;
  service_app_registrations: ServiceAppRegistrationsTable;
  service_groups: ServiceGroupsTable;
  service_group_members: ServiceGroupMembersTable;
  deliveries: DeliveriesTable;
  jobs: JobsTable;
  idempotency_keys: IdempotencyKeysTable;
  imports: ImportsTable;
  service_polls: ServicePollsTable;
  imported_entries: ImportedEntriesTable;
  places: PlacesTable;
  visits: VisitsTable;
  trips: TripsTable;
  visit_corrections: VisitCorrectionsTable;
  visit_marks: VisitMarksTable;
  visit_spans: VisitSpansTable;
  post_media: PostMediaTable;
  search_docs: SearchDocsTable;
}
