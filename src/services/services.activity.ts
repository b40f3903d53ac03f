// What has arrived from a tracker (`activity` on its service object): when points last came, and
// how many on the person's local day.
import type { Db } from '../db/database.ts';
import { localDay, msToSeconds, nowMs } from '../lib/time.ts';
import { getSettings } from '../settings/settings.logic.ts';
import { connectors } from './connectors/index.ts';
import type { ServiceType } from './connectors/types.ts';
import type { Service } from './services.schemas.ts';
import type * as repo from './services.repo.ts';

/** Today in the person's time zone (days since 1970-01-01), read only when a tracker is among `rows`. */
export async function todayFor(db: Db, userId: string, rows: readonly repo.ServiceRow[]): Promise<number | undefined> {
  if (!rows.some((row) => connectors[row.type as ServiceType].ingest)) return undefined;
  return localDay(nowMs(), (await getSettings(db, userId)).timezone);
}

/** A tracker's service object with what has arrived (`activity`); any other service as it is. */
export function withActivity(service: Service, row: repo.ServiceRow, today: number | undefined): Service {
  if (today === undefined || !connectors[row.type as ServiceType].ingest) return service;
  const lastPointAt = row.last_point_at == null ? null : Number(row.last_point_at);
  // The counter holds the points of the day it was last written on: another day's count is not today's.
  const pointsToday = row.points_day != null && Number(row.points_day) === today ? Number(row.points_today ?? 0) : 0;
  return {
    ...service,
    activity: { last_point_at: lastPointAt === null ? null : msToSeconds(lastPointAt), points_today: pointsToday },
  };
}
