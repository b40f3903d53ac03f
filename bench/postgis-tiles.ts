// Tiles the way PostGIS makes them, for bench:history's comparison on PostgreSQL
// (docs/history.md "PostgreSQL and PostGIS"): the person's points copied into a table of their
// own with a geometry in Web Mercator and a GiST index, and each tile one ST_AsMVT query over
// the points in ST_TileEnvelope. The layers are Waypost's (src/history/tiles.logic.ts):
//   cells   64 x 64 cells with `count`, below zoom 12 or when a tile holds more than 8,000 points;
//   points  each point with `time` in seconds, and tracks through them in time order, broken
//           where consecutive points are more than 10 minutes apart (not at GPS jumps: a little
//           less work than Waypost does).
// Like Waypost's, a tile from zoom 12 first asks whether it holds at most 8,000 points (here
// with a count of the index's matches, stopped at 8,001). The table holds this one person's
// points only, so its queries filter on nothing else: the comparison favours PostGIS.
import type pg from 'pg';
import { POINTS_MAX, POINTS_MIN_ZOOM } from '../src/history/tiles.logic.ts';

const COUNT = `select count(*)::int as n from (
    select 1 from postgis_points where geom && ST_TileEnvelope($1, $2, $3) limit ${POINTS_MAX + 1}) s`;

const CELLS = `with b as (
    select env, ST_XMin(env) as x0, ST_YMax(env) as y0, (ST_XMax(env) - ST_XMin(env)) / 64 as step
    from (select ST_TileEnvelope($1, $2, $3) as env) e),
  c as (
    select least(63, floor((ST_X(p.geom) - b.x0) / b.step))::int as cx,
           least(63, floor((b.y0 - ST_Y(p.geom)) / b.step))::int as cy, count(*)::int as count
    from postgis_points p, b where p.geom && b.env group by 1, 2)
  select ST_AsMVT(t, 'cells', 4096, 'geom') as mvt from (
    select ST_AsMVTGeom(ST_Point(b.x0 + (c.cx + 0.5) * b.step, b.y0 - (c.cy + 0.5) * b.step, 3857), b.env, 4096, 0, false)
             as geom, c.count
    from c, b) t`;

const POINTS = `with p as (
    select p.time, ST_AsMVTGeom(p.geom, e.env, 4096, 0, false) as geom
    from postgis_points p, (select ST_TileEnvelope($1, $2, $3) as env) e where p.geom && e.env),
  s as (select time, geom, case when time - lag(time) over (order by time) > 600000 then 1 else 0 end as gap from p),
  k as (select time, geom, sum(gap) over (order by time) as track from s),
  l as (select ST_MakeLine(geom order by time) as geom, count(*)::int as points from k group by track having count(*) >= 2)
  select coalesce((select ST_AsMVT(a, 'points', 4096, 'geom') from (select geom, time / 1000.0 as time from p) a), ''::bytea)
      || coalesce((select ST_AsMVT(l, 'tracks', 4096, 'geom') from l), ''::bytea) as mvt`;

/** Whether the server can install PostGIS in a database. */
export async function postgisAvailable(client: pg.Client): Promise<boolean> {
  const { rowCount } = await client.query("select 1 from pg_available_extensions where name = 'postgis'");
  return rowCount === 1;
}

/**
 * Installs PostGIS in the client's database and copies `userId`'s points into `postgis_points`
 * with a GiST index (once: a kept database has them already). Returns the seconds it took.
 */
export async function preparePostgis(client: pg.Client, userId: string): Promise<number> {
  const begin = performance.now();
  await client.query('create extension if not exists postgis');
  const { rowCount } = await client.query("select 1 from pg_tables where tablename = 'postgis_points'");
  if (rowCount === 0) {
    await client.query(
      `create table postgis_points as
       select time, ST_Transform(ST_SetSRID(ST_MakePoint(lon, lat), 4326), 3857) as geom from locations where user_id = $1`,
      [userId],
    );
    await client.query('create index postgis_points_geom on postgis_points using gist (geom)');
    await client.query('analyze postgis_points');
  }
  return (performance.now() - begin) / 1000;
}

/** The tile z/x/y made by PostGIS; returns its size in bytes. */
export async function postgisTile(client: pg.Client, z: number, x: number, y: number): Promise<number> {
  let points = false;
  if (z >= POINTS_MIN_ZOOM) {
    const { rows } = await client.query<{ n: number }>({ name: 'postgis_count', text: COUNT, values: [z, x, y] });
    points = rows[0]!.n <= POINTS_MAX;
  }
  const { rows } = await client.query<{ mvt: Buffer | null }>(
    points
      ? { name: 'postgis_points', text: POINTS, values: [z, x, y] }
      : { name: 'postgis_cells', text: CELLS, values: [z, x, y] },
  );
  return rows[0]?.mvt?.byteLength ?? 0;
}
