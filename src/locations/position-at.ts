// Where the person was at an instant, from their history (docs/history.md "Photos placed by the
// history"): a photo or video whose file says when but not where is placed here. Between the
// nearest point before and the nearest after, in proportion to the time, when both are within
// PLACE_WINDOW_MS of the instant; the nearer alone when only it is within PLACE_ALONE_MS. Beyond
// that the history does not know: a phone that recorded nothing for half an hour may have
// travelled any distance.
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';

/** Both neighbours this close in time: the person went from one to the other meanwhile. */
export const PLACE_WINDOW_MS = 15 * 60_000;
/** One neighbour alone this close: a walk covers about 400 m in the time, the photo no farther. */
export const PLACE_ALONE_MS = 5 * 60_000;

interface Fix {
  time: number;
  lat: number;
  lon: number;
}

async function neighbour(db: Db, userId: string, atMs: number, side: 'before' | 'after'): Promise<Fix | undefined> {
  const { rows } =
    side === 'before'
      ? await sql<Fix>`select time, lat, lon from locations where user_id = ${userId}
          and time <= ${atMs} and time > ${atMs - PLACE_WINDOW_MS} order by time desc, id desc limit 1`.execute(db)
      : await sql<Fix>`select time, lat, lon from locations where user_id = ${userId}
          and time >= ${atMs} and time < ${atMs + PLACE_WINDOW_MS} order by time, id limit 1`.execute(db);
  const row = rows[0];
  return row && { time: Number(row.time), lat: row.lat, lon: row.lon };
}

/** The interpolated position at `atMs`, or null when the history does not say. */
export async function positionAt(db: Db, userId: string, atMs: number): Promise<{ lat: number; lon: number } | null> {
  const before = await neighbour(db, userId, atMs, 'before');
  const after = await neighbour(db, userId, atMs, 'after');
  if (before && after) {
    if (after.time === before.time) return { lat: before.lat, lon: before.lon };
    const share = (atMs - before.time) / (after.time - before.time);
    // Across the antimeridian the short way round, as every distance here is measured.
    let dLon = after.lon - before.lon;
    if (dLon > 180) dLon -= 360;
    if (dLon < -180) dLon += 360;
    let lon = before.lon + dLon * share;
    if (lon > 180) lon -= 360;
    if (lon < -180) lon += 360;
    return { lat: round6(before.lat + (after.lat - before.lat) * share), lon: round6(lon) };
  }
  const alone = [before, after].find((fix) => fix && Math.abs(fix.time - atMs) <= PLACE_ALONE_MS);
  return alone ? { lat: alone.lat, lon: alone.lon } : null;
}

const round6 = (value: number) => Math.round(value * 1e6) / 1e6;
