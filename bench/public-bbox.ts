// A public bbox page at 100k points, three ways (src/locations/locations.logic.ts says why the
// first is the one served):
//   kept     what Waypost does: the database reads a box widened by one grid cell, the
//            application keeps the points whose rounded place is in the box, paging on
//   sql      the grid cell computed in SQL from the setting (floor, cos, pi), same keyset page
//   widened  the widened box alone, nothing rounded: a floor for any way of doing it
//
//   node scripts/node24.mjs bench/public-bbox.ts                    (SQLite in a temp folder)
//   DATABASE_URL=postgres://... node scripts/node24.mjs bench/public-bbox.ts
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { openDatabase } from '../src/db/database.ts';
import { cursorsFor } from '../src/core/cursors.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { newId } from '../src/lib/ids.ts';
import { selectLocationPage } from '../src/locations/locations.repo.ts';
import { listLocations } from '../src/locations/locations.logic.ts';
import type { Box } from '../src/lib/box.ts';
import { widenBox } from '../src/privacy/served-box.ts';
import { roundPoint } from '../src/privacy/precision.ts';
import { updateSettings } from '../src/settings/settings.logic.ts';
import { createUser } from '../src/users/users.logic.ts';
import type { LocationsParams } from '../src/locations/locations.schemas.ts';

const POINTS = Number(process.env.POINTS ?? 100_000);
const PRECISION_M = 1000;
const RUNS = 15;

const dir = mkdtempSync(join(tmpdir(), 'waypost-bbox-'));
const url = process.env.DATABASE_URL;
const database = openDatabase(url ? { url, poolSize: 4 } : { sqlitePath: join(dir, 'bench.db') });
const { db } = database;
await migrateToLatest(database);

/** A deterministic pseudo-random walk, so every run measures the same points. */
let seed = 42;
const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;

async function seedUser(name: string, place: (i: number) => { lat: number; lon: number }) {
  const user = await createUser(db, { username: name, password: 'correct horse battery' }, { log2N: 10, r: 8, p: 1 });
  await updateSettings(db, user.id, { publicLocationPrecisionM: PRECISION_M });
  for (let start = 0; start < POINTS; start += 1000) {
    const rows = Array.from({ length: Math.min(1000, POINTS - start) }, (_, j) => {
      const i = start + j;
      return {
        user_id: user.id,
        id: newId(),
        scope: 'public' as const,
        time: 1_600_000_000_000 + i * 1000,
        created_at: 1_600_000_000_000,
        ...place(i),
        alt: null,
        accuracy: 5,
        speed: null,
        heading: null,
        source: null,
      };
    });
    for (let k = 0; k < rows.length; k += 250)
      await db
        .insertInto('locations')
        .values(rows.slice(k, k + 250))
        .execute();
  }
  return { id: user.id, username: name };
}

// A town: 100k points within half a degree of Berlin.
const town = await seedUser('town', () => ({ lat: 52.25 + random() * 0.5, lon: 13.15 + random() * 0.5 }));
// The worst case for `kept`: every point in the one-cell rim just west of the box, none inside.
const edge = roundPoint(52.5, 13.4, PRECISION_M);
const latStep = PRECISION_M / 111_320;
const lonStep = latStep / Math.cos((edge.lat * Math.PI) / 180);
const rim = await seedUser('rim', () => ({
  lat: edge.lat + (random() - 0.5) * latStep * 0.9,
  lon: edge.lon + (random() - 0.5) * lonStep * 0.9,
}));

// As autovacuum would have done by the time anyone reads them: the planner needs the statistics.
if (database.dialect === 'postgres') await sql`analyze locations`.execute(db);

const boxes: [string, { id: string; username: string }, Box][] = [
  ['city (many inside)', town, { minLon: 13.3, minLat: 52.45, maxLon: 13.5, maxLat: 52.55 }],
  ['3 km (few inside)', town, { minLon: 13.4, minLat: 52.5, maxLon: 13.44, maxLat: 52.527 }],
  ['Paris (none near)', town, { minLon: 2.2, minLat: 48.8, maxLon: 2.4, maxLat: 48.9 }],
  ['rim only (worst)', rim, { minLon: edge.lon + 1e-6, minLat: 52, maxLon: 14, maxLat: 53 }],
];

const pg = database.dialect === 'postgres';
const least = (a: unknown, b: unknown) => (pg ? sql`least(${a}, ${b})` : sql`min(${a}, ${b})`);
const greatest = (a: unknown, b: unknown) => (pg ? sql`greatest(${a}, ${b})` : sql`max(${a}, ${b})`);

/** The grid of src/privacy/precision.ts written in SQL. */
async function sqlPage(userId: string, box: Box) {
  const wide = widenBox(box, PRECISION_M);
  const rlat = greatest(-90, least(90, sql`floor(lat / ${latStep} + 0.5) * ${latStep}`));
  const cos = sql`cos(rlat * pi() / 180)`;
  const lstep = sql`case when ${cos} * 360 <= ${latStep} then 360.0 else ${least(360, sql`${latStep} / ${cos}`)} end`;
  const rlon = sql`floor(lon / lstep + 0.5) * lstep`;
  const { rows } = await sql`select * from (
      select *, ${lstep} as lstep from (
        select *, ${rlat} as rlat from locations
        where user_id = ${userId} and scope = 'public'
          and lat >= ${wide.minLat} and lat <= ${wide.maxLat} and lon >= ${wide.minLon} and lon <= ${wide.maxLon}
      ) a
    ) b
    where rlat >= ${box.minLat} and rlat <= ${box.maxLat} and ${rlon} >= ${box.minLon} and ${rlon} <= ${box.maxLon}
    order by time desc, id desc limit 51`.execute(db);
  return rows.length;
}

async function median(run: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 3; i += 1) await run();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    const start = performance.now();
    await run();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(RUNS / 2)]!;
}

const query = (box: Box): LocationsParams => ({
  count: 50,
  order: 'desc',
  bbox: `${box.minLon},${box.minLat},${box.maxLon},${box.maxLat}`,
});
console.log(
  `${database.dialect}, ${POINTS} public points per person, precision ${PRECISION_M} m, median of ${RUNS} (ms)`,
);
console.log('box                    kept     sql  widened  points');
const cursors = cursorsFor(randomBytes(32));
for (const [name, owner, box] of boxes) {
  const ctx = { owner, scope: 'public' as const, query: query(box), byOwner: false, exact: false, cursors };
  let shown = 0;
  const kept = await median(async () => (shown = (await listLocations(db, ctx)).items.length));
  const inSql = await median(() => sqlPage(owner.id, box));
  const page = { count: 50, order: 'desc' as const };
  const wide = await median(() =>
    selectLocationPage(db, { owner: owner.id, scope: 'public' }, page, widenBox(box, PRECISION_M)),
  );
  const cells = [kept, inSql, wide].map((ms) => ms.toFixed(2).padStart(7));
  console.log(`${name.padEnd(20)} ${cells.join(' ')}  ${String(shown).padStart(6)}`);
}
await database.close();
rmSync(dir, { recursive: true, force: true });
