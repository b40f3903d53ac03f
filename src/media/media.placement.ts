// Media placed by the history after the fact (docs/history.md "Photos placed by the history"):
// when the points around a stretch of time change (a tracker's batch, an import, a deletion),
// the media taken in it whose file said when but not where are placed again. That covers a
// photo uploaded before the history that places it arrived, and one whose points went.
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { PLACE_WINDOW_MS, positionAt } from '../locations/position-at.ts';

/**
 * Places, again, the person's media taken in [sinceMs, untilMs) (widened by the window the
 * placing looks in) that the history placed, or that have no place and a time of their own.
 * A medium's time is its own when it differs from when it was stored: an upload without a
 * taken time is dated by its upload (src/media/media.logic.ts createMedium), and where the
 * person was when they uploaded it says nothing of where it was taken. Returns how many moved.
 */
export async function placeMediaBetween(db: Db, userId: string, sinceMs: number, untilMs: number): Promise<number> {
  const { rows } = await sql<{ id: string; time: number; lat: number | null; lon: number | null }>`
    select id, time, lat, lon from media where user_id = ${userId}
      and time >= ${sinceMs - PLACE_WINDOW_MS} and time < ${untilMs + PLACE_WINDOW_MS}
      and (location_source = 'history' or (lat is null and location_source is null and time <> created_at))`.execute(
    db,
  );
  let moved = 0;
  for (const row of rows) {
    const place = await positionAt(db, userId, Number(row.time));
    if (place?.lat === row.lat && place?.lon === row.lon) continue;
    if (!place && row.lat === null) continue;
    await db
      .updateTable('media')
      .set({ lat: place?.lat ?? null, lon: place?.lon ?? null, location_source: place ? 'history' : null })
      .where('user_id', '=', userId)
      .where('id', '=', row.id)
      .execute();
    moved += 1;
  }
  return moved;
}
