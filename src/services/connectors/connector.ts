// The one interface every outside service is reached through (docs/conventions.md 11). A connector knows
// its configuration (which fields are secrets) and what it does: publish a post, take the
// points a tracker app sends (`ingest`, src/services/connectors/tracker.ts), or bring posts in
// on a schedule (`poll`, src/services/polling/poller.ts). The
// worker, the routes and the storage know nothing about any particular type.
import type { TObject } from 'typebox';
import type { Outbound } from '../../lib/ssrf.ts';
import type { Poller } from '../polling/poller.ts';
import type { Connect } from './connect.ts';
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

/**
 * A medium that goes out with a post: public ones only, read when the delivery runs (a private
 * medium is never sent anywhere: docs/api.md "Services and groups").
 */
export interface OutgoingMedium {
  id: string;
  kind: 'image' | 'video' | 'audio' | 'other';
  /** The type of the public copy. */
  mime_type: string;
  /** The public copy (without metadata) on this Waypost: anyone may fetch it. */
  url: string;
  caption: string;
  width: number | null;
  height: number | null;
  /** The public copy's bytes. */
  read(): Promise<Uint8Array>;
  /** An image's public copy as a JPEG within `maxBytes`, longest side at most `maxSide`;
   * null when it cannot fit (or is not an image). */
  fit(maxBytes: number, maxSide: number): Promise<{ bytes: Uint8Array; width: number; height: number } | null>;
}

/** What a connector keeps between deliveries (a session), stored sealed like the secrets. */
export interface ConnectorState {
  /** As saved last, or null. */
  readonly value: string | null;
  save(value: string | null): Promise<void>;
}

/** What every call to a connector gets: the service's settings and the means to reach it. */
export interface ServiceContext {
  serviceId: string;
  /** The non-secret configuration, as validated by `configSchema`. */
  config: Readonly<Record<string, string>>;
  /** The secret fields, decrypted. Never logged. */
  secrets: Readonly<Record<string, string>>;
  state: ConnectorState;
  outbound: Outbound;
  /** Milliseconds since the epoch; injectable for tests. */
  now: () => number;
}

export interface PublishRequest extends ServiceContext {
  post: OutgoingPost;
  /** The post's public media, in the post's order. */
  media: readonly OutgoingMedium[];
  /** The post's public page (`/@<username>/<id>`): where a shortened text links to. */
  pageUrl: string;
  /** Stable across every attempt of one delivery, so the target can de-duplicate
   * (`webhook-id`, `Idempotency-Key`). */
  deliveryId: string;
}

export interface PublishResult {
  /** Where the target put the post, when it says. */
  remoteUrl: string | null;
  /** The target's own id for it (a Bluesky at:// URI, a Mastodon status id), when it has one. */
  remoteId?: string | null;
}

/** An edit of a delivered post: the post as it is now, and where the target put it. */
export interface UpdateRequest extends Omit<PublishRequest, 'media'> {
  remoteId: string | null;
  remoteUrl: string | null;
}

/** The answer of `POST /services/<id>/test` (docs/api.md "Services and groups"). */
export interface TestResult {
  /** The target accepted the test (a 2xx, or valid credentials). */
  ok: boolean;
  /** The target's HTTP status; null when it could not be reached. */
  status: number | null;
  /** A short excerpt of the target's answer, or what went wrong. */
  detail: string;
}

export interface Connector {
  description: string;
  capabilities: readonly Capability[];
  /** `config` of `POST /services` for this type (string fields, `additionalProperties: false`). */
  configSchema: TObject;
  /** Fields of `config` that are secrets: stored encrypted, shown as `[redacted]`, never logged. */
  secretFields: readonly string[];
  /** Secrets Waypost makes itself when none is given (a webhook's signing secret): each field's
   * maker. Shown once, in the answer that made it (`generated_secrets`). */
  makeSecrets?: Readonly<Record<string, () => string>>;
  /** Connects an account through the target's own sign-in (OAuth) instead of a pasted token
   * (./mastodon.connect.ts). Absent: the secrets are entered. */
  connect?: Connect;
  /** Publishes a post. Throws DeliveryError; any other error counts as temporary. Absent:
   * the type publishes nothing, and cannot be a member of a service group. */
  publish?(request: PublishRequest): Promise<PublishResult>;
  /** Sends a new text of a post it delivered. Throws DeliveryError. Absent: the type takes no
   * edits, and the delivery's `edit_status` says `unsupported`. */
  update?(request: UpdateRequest): Promise<void>;
  /** Reads what a tracker app sends to the service's ingest URL. Absent: the type has no
   * ingest URL and no ingest token. */
  ingest?: Ingest;
  /** Brings posts in on a schedule (src/services/polling/). Absent: the type polls nothing. */
  poll?: Poller;
  /** Checks the connection: a test event, or the credentials where the protocol allows. Absent:
   * the type has no test. */
  test?(context: ServiceContext & { testId: string }): Promise<TestResult>;
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

/** What a 400 says of a URL field that is not one (a config field's `errorMessage`). */
export const URL_MESSAGE = 'must be a web address starting with https:// (or http://)';

/** At most `max` characters of a target's answer, on one line, for a test result or an error. */
export function excerpt(text: string, max = 200): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, max);
}

/** Where a test could not reach the target: the reason, never the secrets in a URL. */
export function unreachable(error: unknown): TestResult {
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return {
    ok: false,
    status: null,
    detail: excerpt(`${error instanceof Error ? error.message : String(error)}${cause}`),
  };
}
