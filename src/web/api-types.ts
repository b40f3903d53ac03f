// The API objects the pages read (docs/api.md "Objects"), as far as the pages use them.
export type Scope = 'public' | 'private';

export interface Delivery {
  service_id: string;
  status: string;
  attempts: number;
  remote_url: string | null;
  last_error: string | null;
}

export interface PostObject {
  id: string;
  text: string;
  scope: Scope;
  time: number;
  media_ids: string[];
  location: { lat: number; lon: number } | null;
  deliveries?: Delivery[];
}

export interface MediumObject {
  id: string;
  scope: Scope;
  kind: string;
  mime_type: string;
  size: number;
  width: number | null;
  height: number | null;
  duration: number | null;
  time: number;
  caption: string;
  thumbnail_url: string | null;
}

export interface LocationObject {
  id: string;
  scope: Scope;
  time: number;
  lat: number;
  lon: number;
  accuracy: number | null;
}

export interface SettingsObject {
  default_scopes: { posts: Scope; media: Scope; locations: Scope };
  timezone: string;
  public_location_precision_m: number;
  privacy_zones: { name: string; lat: number; lon: number; radius_m: number }[];
  display_name: string;
  bio: string;
}

export interface ServiceObject {
  id: string;
  type: string;
  name: string;
  enabled: boolean;
  capabilities: string[];
  config: Record<string, unknown>;
  status?: string;
  last_error: string | null;
  /** Secret fields it lacks (restored from an export). */
  missing_secrets?: string[];
}

export interface GroupObject {
  id: string;
  name: string;
  service_ids: string[];
}

export interface ViewObject {
  id: string;
  name: string;
  description: string;
  kinds: string[];
  filters: Record<string, unknown>;
  scope: Scope;
}

/** The `rel="next"` target of a Link header, as a path on this server. */
export function nextLink(header: unknown): string | undefined {
  const value = Array.isArray(header) ? header.join(', ') : typeof header === 'string' ? header : '';
  const match = /<([^>]+)>\s*;\s*rel="?next"?/.exec(value);
  if (!match) return undefined;
  const url = new URL(match[1]!, 'http://x');
  return url.pathname + url.search;
}
