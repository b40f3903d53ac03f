// The one interface every outside service is reached through (docs/conventions.md 11). A connector knows
// its configuration (which fields are secrets) and what it does: publish a post, take the
// points a tracker app sends (`ingest`, src/services/connectors/tracker.ts), or bring posts in
// on a schedule (`poll`, src/services/polling/poller.ts). The
// worker, the routes and the storage know nothing about any particular type.
import type { TObject } from 'typebox';
import type { Outbound } from '../../lib/ssrf.ts';
import type { Poller } from '../polling/poller.ts';
import type { Ingest } from './tracker.ts';

export type Capability = 'publish' | 'import';

/** The post as it is sent out: a snapshot taken when the post was written (the outbox). */
export interface OutgoingPost {
  id: string;
  username: string;
  text: string;
  scope: 'public' | 'private';
  /** Unix epoch seconds */
  time: number;
  created_at: number;
  /** Where the post lives on this Waypost. */
  url: string;
  media_ids: string[];
  location: { lat: number; lon: number } | null;
}

export interface PublishRequest {
  post: OutgoingPost;
  /** The non-secret configuration, as validated by `configSchema`. */
  config: Readonly<Record<string, string>>;
  /** The secret fields, decrypted. Never logged. */
  secrets: Readonly<Record<string, string>>;
  /** Stable across every attempt of one delivery, so the target can de-duplicate
   * (`webhook-id`, `Idempotency-Key`). */
  deliveryId: string;
  outbound: Outbound;
  /** Milliseconds since the epoch; injectable for tests. */
  now: () => number;
}

export interface PublishResult {
  /** Where the target put the post, when it says. */
  remoteUrl: string | null;
}

export interface Connector {
  description: string;
  capabilities: readonly Capability[];
  /** `config` of `POST /services` for this type (string fields, `additionalProperties: false`). */
  configSchema: TObject;
  /** Fields of `config` that are secrets: stored encrypted, shown as `[redacted]`, never logged. */
  secretFields: readonly string[];
  /** Publishes a post. Throws DeliveryError; any other error counts as temporary. Absent:
   * the type publishes nothing, and cannot be a member of a service group. */
  publish?(request: PublishRequest): Promise<PublishResult>;
  /** Reads what a tracker app sends to the service's ingest URL. Absent: the type has no
   * ingest URL and no ingest token. */
  ingest?: Ingest;
  /** Brings posts in on a schedule (src/services/polling/). Absent: the type polls nothing. */
  poll?: Poller;
}

/** A failed delivery attempt; `permanent` ones are not retried. */
export class DeliveryError extends Error {
  override name = 'DeliveryError';
  readonly permanent: boolean;
  constructor(message: string, permanent: boolean) {
    super(message);
    this.permanent = permanent;
  }
}

// Statuses that another attempt of the same request cannot fix. 408, 409, 425 and 429 ask for
// a retry; 5xx are the target's trouble and may pass.
const PERMANENT = new Set([400, 401, 403, 404, 405, 410, 411, 413, 414, 415, 422]);

/** A DeliveryError for a non-2xx answer, naming only the origin (paths may carry tokens). */
export async function httpFailure(response: { status: number; text(): Promise<string> }, url: string) {
  const snippet = (await response.text().catch(() => '')).replace(/\s+/g, ' ').trim().slice(0, 200);
  const message = `HTTP ${response.status} from ${new URL(url).origin}${snippet ? `: ${snippet}` : ''}`;
  return new DeliveryError(message, PERMANENT.has(response.status));
}

/** A URL field of a connector's config: http(s) only (the outbound guard checks the address). */
export const HTTP_URL_PATTERN = '^https?://[^\\s/?#]+[^\\s]*$';
