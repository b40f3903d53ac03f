// locations.geojsonseq restored, counted as a location import counts its points, through the
// locations' own insert (a point already stored at the same time and place is passed over, and
// each point is hidden or not by the person's privacy zones as every other way in does). Each
// point keeps the import's id, so deleting the import removes them.
import type { LocationsTable } from '../../db/schema.ts';
import { secondsToMs } from '../../lib/time.ts';
import { insertLocations } from '../../locations/locations.repo.ts';
import { ENTRIES, LocationRecord } from '../format.ts';
import { resolveIds } from './restore.ids.ts';
import { checker, lineBatches, restoredSource, type Phase } from './restore.phase.ts';

/** Points per insert statement: a batch of records is stored in several. */
const INSERT_ROWS = 500;

export async function restoreLocations(
  run: Phase,
  serviceIds: ReadonlyMap<string, string>,
  batchRecords: number,
): Promise<void> {
  const check = checker(LocationRecord);
  const { points } = run;
  for await (const lines of lineBatches(run, ENTRIES.locations, batchRecords)) {
    await run.commit(async (trx) => {
      const valid: { counting: boolean; point: LocationRecord }[] = [];
      for (const line of lines) {
        const counting = run.next();
        const checked = 'error' in line ? { ok: false as const, message: line.error } : check(line.value);
        if (!checked.ok) {
          if (counting) {
            points.points_seen += 1;
            points.skipped += 1;
            run.problem(`${ENTRIES.locations} record ${line.line}`, checked.message);
          }
        } else valid.push({ counting, point: checked.value });
      }
      const resolved = await resolveIds(
        trx,
        'locations',
        run.userId,
        valid.map((v) => v.point.properties.id),
      );
      const rows: LocationsTable[] = [];
      const at = run.now();
      let counted = 0;
      let duplicates = 0;
      for (const [n, { counting, point }] of valid.entries()) {
        const target = resolved[n];
        if (counting) points.points_seen += 1;
        if (!target || target.existing) {
          if (counting) duplicates += 1;
          continue;
        }
        const [lon, lat, alt] = point.geometry.coordinates;
        const p = point.properties;
        rows.push({
          user_id: run.userId,
          id: target.id,
          scope: p.scope,
          time: secondsToMs(p.time),
          created_at: p.created_at === undefined ? at : secondsToMs(p.created_at),
          lat,
          lon,
          alt: alt ?? p.alt ?? null,
          accuracy: p.accuracy ?? null,
          speed: p.speed ?? null,
          heading: p.heading ?? null,
          source: restoredSource(serviceIds, p.source),
          import_id: run.importId,
        });
        if (counting) counted += 1;
      }
      // Every row here counts unless it is before the checkpoint, which has no new rows.
      let inserted = 0;
      for (let start = 0; start < rows.length; start += INSERT_ROWS) {
        inserted += await insertLocations(trx, rows.slice(start, start + INSERT_ROWS));
      }
      points.points_stored += Math.min(inserted, counted);
      points.duplicates += duplicates + (counted - Math.min(inserted, counted));
    });
  }
}
