// Trackers: the ingest URL of a tracker service (docs/trackers.md). The app authenticates with
// the service's ingest token; its protocol is read by the type's connector (`ingest`), and the
// points are stored through the same path as `POST /locations`, with `source` = the service.
import type { Db } from '../db/database.ts';
import { AppError } from '../core/errors.ts';
import { safeEqual, sha256Hex } from '../lib/crypto.ts';
import { localDay, nowMs } from '../lib/time.ts';
import { storePoints } from '../locations/locations.logic.ts';
import type { Ingest, IngestRequest } from './connectors/tracker.ts';
import { connectors, isServiceType } from './connectors/index.ts';
import {
  findTrackerRow,
  listTrackerActivityRows,
  recordTrackerPoints,
  recordTrackerRefusal,
  setServiceStatus,
} from './services.repo.ts';
import { getSettings } from '../settings/settings.logic.ts';

/** A tracker service that presented its current token. */
export interface Tracker {
  id: string;
  userId: string;
  /** Its type's protocol. */
  ingest: Ingest;
  status: string;
}

// RFC 9110 11.6.1: a 401 carries a challenge. Both ways the apps can answer it are named.
const CHALLENGE = 'Basic realm="waypost ingest", Bearer realm="waypost ingest"';

function badToken() {
  return new AppError('invalid_token', 'The ingest token is wrong, or was replaced by a newer one.', {
    headers: { 'www-authenticate': CHALLENGE },
  });
}

/**
 * The tracker behind an ingest URL, when `token` is its current token. A wrong token, one that
 * was rotated away, another service's, a missing one, or a service that no longer exists:
 * 401, all alike. A disabled service: 403, so its app reports a refusal the person can see.
 */
export async function authenticateTracker(db: Db, id: string, token: string | undefined): Promise<Tracker> {
  const row = await findTrackerRow(db, id);
  const hash = row?.ingest_token_hash;
  if (!row || !hash || !token || !safeEqual(sha256Hex(token), hash)) {
    // A phone still sending the token a "New token" replaced: refused alike, and the page says so.
    const previous = row?.previous_token_hash;
    if (row && previous && token && safeEqual(sha256Hex(token), previous)) {
      await recordTrackerRefusal(db, row.id, 'replaced_token', nowMs());
    }
    throw badToken();
  }
  const ingest = isServiceType(row.type) ? connectors[row.type].ingest : undefined;
  if (!ingest) throw badToken();
  if (row.enabled !== 1) {
    await recordTrackerRefusal(db, row.id, 'switched_off', nowMs());
    throw new AppError(
      'service_disabled',
      'This tracker is switched off: it stores nothing until it is switched on again on the Trackers page.',
    );
  }
  return { id: row.id, userId: row.user_id, ingest, status: row.status };
}

/**
 * Reads and stores what the app sent; answers with the body the app expects, only once the
 * points are committed. Points the protocol leaves out (see each connector) make the service's
 * status `error`, with `last_error` naming the first; a clean request makes it `ok` again.
 */
export async function ingestPoints(db: Db, tracker: Tracker, request: IngestRequest): Promise<unknown> {
  const { ingest } = tracker;
  const { points, skipped } = ingest.parse(request);
  const result = await storePoints(db, tracker.userId, points, tracker.id);
  if (points.length > 0) {
    const now = nowMs();
    const { timezone } = await getSettings(db, tracker.userId);
    await recordTrackerPoints(db, tracker.id, now, localDay(now, timezone), points.length);
  }
  const first = skipped[0];
  if (first) {
    const message = `${skipped.length} point(s) from ${ingest.app} could not be read and were left out; first: ${first.path} ${first.message}`;
    await setServiceStatus(db, tracker.id, 'error', message, nowMs());
  } else if (tracker.status === 'error') {
    await setServiceStatus(db, tracker.id, 'ok', null, nowMs());
  }
  return ingest.reply({ ...result, skipped: skipped.length });
}

/** What the Trackers page says of a tracker's traffic (docs/trackers.md "The tracker page"). */
export interface TrackerActivity {
  /** When points last arrived (ms), or null before the first. */
  lastPointAt: number | null;
  /** Points that arrived today, in the owner's time zone. */
  pointsToday: number;
  /** The last request refused although it carried a token the tracker had (ms), and why. */
  refusedAt: number | null;
  refusedReason: 'replaced_token' | 'switched_off' | null;
}

/** Each of the person's trackers' activity, by service id. */
export async function trackerActivities(db: Db, userId: string, now = nowMs()): Promise<Map<string, TrackerActivity>> {
  const [rows, { timezone }] = await Promise.all([listTrackerActivityRows(db, userId), getSettings(db, userId)]);
  const today = localDay(now, timezone);
  const reasons = ['replaced_token', 'switched_off'] as const;
  return new Map(
    rows.map((row) => [
      row.id,
      {
        lastPointAt: row.last_point_at == null ? null : Number(row.last_point_at),
        pointsToday: row.points_day != null && Number(row.points_day) === today ? Number(row.points_today ?? 0) : 0,
        refusedAt: row.refused_at == null ? null : Number(row.refused_at),
        refusedReason: reasons.find((reason) => reason === row.refused_reason) ?? null,
      },
    ]),
  );
}
