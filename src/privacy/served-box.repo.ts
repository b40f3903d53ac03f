// The first cut, in SQL, of a box over items whose public ones are served rounded
// (src/privacy/served-box.ts): every item the application may keep, and few others.
import { SqliteAdapter, sql, type Expression, type SqlBool } from 'kysely';
import type { Db } from '../db/database.ts';
import { boxFilter } from '../lib/box.repo.ts';
import { lonRanges, type Box } from '../lib/box.ts';
import { gridLatStep } from './precision.ts';
import { widenBox, type PlaceFilter } from './served-box.ts';

/** A number bound as a double on both databases, so SQL does the same IEEE arithmetic as JavaScript. */
const num = (value: number) => sql`cast(${value} as double precision)`;
/** Within this fraction of a cell of a cell's edge, SQL and JavaScript may round a point apart. */
const EDGE_BAND = 1e-6;
/** How far (degrees) roundPoint's last step, to six decimals, can move a point; and some. */
const SIX_DECIMALS = 1e-6;

/**
 * What the database reads for a box over items whose public ones are served rounded: the
 * widened box, and within it the private items in the box and the public items whose rounded
 * place SQL finds in the box. The application decides (`place.keeps`), so this only has to
 * hold every item it keeps, and few others: without the rounding here, a page would read every
 * point of the one-cell rim around the box (at 100k points there: 1.2 s on PostgreSQL).
 */
export function placeFilter(db: Db, place: PlaceFilter): Expression<SqlBool> {
  const scope = sql.ref('scope');
  const byScope = sql<SqlBool>`((${scope} = 'public' and ${servedInBox(db, place.box, place.precisionM)})
    or (${scope} <> 'public' and ${boxFilter(place.box)}))`;
  return sql<SqlBool>`(${boxFilter(place.sqlBox)} and ${byScope})`;
}

/** `|value - centre| <= half`: the value written once, as SQL evaluates each copy of it again. */
const within = (value: Expression<unknown>, low: number, high: number) =>
  sql<SqlBool>`abs(${value} - ${num((low + high) / 2)}) <= ${num((high - low) / 2 + SIX_DECIMALS)}`;

/**
 * src/privacy/precision.ts written in SQL, erring towards yes: a row within a millionth of a
 * cell of a cell's edge passes (there floor(x + 0.5) and Math.round, and two cos(), may
 * disagree), and the box is grown by what the six decimals can move a point.
 */
function servedInBox(db: Db, box: Box, precisionM: number): Expression<SqlBool> {
  if (precisionM <= 0) return boxFilter(box);
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  const least = (a: Expression<unknown>, b: Expression<unknown>) =>
    sqlite ? sql`min(${a}, ${b})` : sql`least(${a}, ${b})`;
  const greatest = (a: Expression<unknown>, b: Expression<unknown>) =>
    sqlite ? sql`max(${a}, ${b})` : sql`greatest(${a}, ${b})`;
  const nearHalf = (v: Expression<unknown>) => sql<SqlBool>`abs(${v} - floor(${v}) - 0.5) < ${num(EDGE_BAND)}`;
  const s = num(gridLatStep(precisionM));
  const x = sql`(${sql.ref('lat')} / ${s})`;
  const rlat = greatest(num(-90), least(num(90), sql`floor(${x} + 0.5) * ${s}`));
  const cos = sql`cos(${rlat} * ${num(Math.PI)} / 180)`;
  // Each copy of an expression is computed again, so every step is written to use few copies:
  // s / max(cos, s / 360) is min(360, s / cos), and 360 where cos * 360 <= s.
  const lonStep = sql`(${s} / ${greatest(cos, sql`${s} / 360`)})`;
  const y = sql`(${sql.ref('lon')} / ${lonStep})`;
  const rlon0 = sql`(floor(${y} + 0.5) * ${lonStep})`;
  const unsure = [nearHalf(x), sql<SqlBool>`abs(${cos} * 360 - ${s}) <= ${num(EDGE_BAND)} * ${s}`, nearHalf(y)];
  // A box (grown by a cell) clear of the antimeridian holds no point that rounds across it.
  const grown = widenBox(box, precisionM);
  const wraps = grown.minLon > grown.maxLon || grown.minLon <= -180 || grown.maxLon >= 180;
  // Into [-180, 180); 180 comes out as -180, the same meridian (src/lib/box.ts).
  const rlon = wraps ? sql`(${rlon0} - 360 * floor((${rlon0} + 180) / 360))` : rlon0;
  if (wraps) unsure.push(sql<SqlBool>`abs(abs(${rlon0}) - 180) < ${num(SIX_DECIMALS)}`);
  const atPole = sql<SqlBool>`abs(${rlat}) >= ${num(90 - SIX_DECIMALS)}`;
  const inLon = lonRanges(box).map(([west, east]) => within(rlon, west, east));
  const decided = sql<SqlBool>`(${within(rlat, box.minLat, box.maxLat)} and (${sql.join([atPole, ...inLon], sql` or `)}))`;
  return sql<SqlBool>`(${sql.join([...unsure, decided], sql` or `)})`;
}
