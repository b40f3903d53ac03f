// Vector tiles of a location history (docs/history.md "Tiles"). Three layers:
//   cells   one point per grid cell (64 x 64 per tile), `count` = points in it: at low zoom,
//           or wherever a tile holds more points than it can carry;
//   points  each point, `time` in epoch seconds: from zoom 12 when the tile holds at most
//           POINTS_MAX points;
//   tracks  lines through consecutive points of the tile, broken at gaps and GPS jumps.
// Every point lies in exactly one tile of a zoom (x and y cells are half-open), so the counts
// of a tile's features add up to the points in its bounds.
//
// Public tiles see public points only, snapped to the owner's precision, and decide which tile
// and cell a point falls in on the snapped coordinate: a box widened by one grid step is read,
// every point snapped, and only those whose snapped position lies in the tile are kept.
import type { Db } from '../db/database.ts';
import { badRequest } from '../core/errors.ts';
import { gridMargin, roundPoint } from '../privacy/precision.ts';
import { MAX_LAT, mercatorX, mercatorY, tileBounds } from './geo.ts';
import { MOVING_MAX_GAP_MS, segmentM, type TimedPoint } from '../lib/distance.ts';
import { eachBatch, POSITION, pointsInBox, type PointsQuery } from '../locations/points.repo.ts';
import { EXTENT, encodeTile, type TileFeature } from './tiles.mvt.ts';
import { FINEST_LEVEL, tileCells, tileCount, timeSpan } from './tiles.repo.ts';

export const MAX_ZOOM = FINEST_LEVEL;
/** Points and tracks from this zoom on; below it, cells. */
export const POINTS_MIN_ZOOM = 12;
/** A tile with more points than this carries cells (about 25 bytes a point with its track). */
export const POINTS_MAX = 8000;
/** Cells per tile side, as a power of two: 64 x 64. */
const CELL_SHIFT = 6;

export interface Tile {
  z: number;
  x: number;
  y: number;
}

export interface TileRange {
  sinceMs?: number | undefined;
  untilMs?: number | undefined;
}

/** z, x and y from the path, or 400. */
export function parseTile(params: { z: string; x: string; y: string }): Tile {
  const [z, x, y] = [params.z, params.x, params.y].map((value) => (/^\d{1,7}$/.test(value) ? Number(value) : NaN)) as [
    number,
    number,
    number,
  ];
  const size = 2 ** z;
  if (!(z >= 0 && z <= MAX_ZOOM && x >= 0 && x < size && y >= 0 && y < size)) {
    throw badRequest(`A tile is z/x/y with z from 0 to ${MAX_ZOOM} and x, y from 0 to 2^z - 1.`, [
      { path: 'params', message: 'is not a tile' },
    ]);
  }
  return { z, x, y };
}

/** Where a position falls at zoom z: the tile and the fraction of it, clamped to the world. */
function place(lat: number, lon: number, z: number) {
  const n = 2 ** z;
  const fx = Math.min(n * (1 - Number.EPSILON), Math.max(0, mercatorX(lon) * n));
  const fy = Math.min(n * (1 - Number.EPSILON), Math.max(0, mercatorY(lat) * n));
  return { tx: Math.floor(fx), ty: Math.floor(fy), fx, fy };
}

/** Features of one tile, built from positions already known to lie in it. */
class TileBuilder {
  readonly #tile: Tile;
  readonly #cells = new Map<number, number>();
  #points: TimedPoint[] | undefined = [];
  count = 0;

  constructor(tile: Tile) {
    this.#tile = tile;
  }

  /** Adds a position if it lies in the tile; false when it does not. */
  add(point: TimedPoint): boolean {
    const { tx, ty, fx, fy } = place(point.lat, point.lon, this.#tile.z);
    if (tx !== this.#tile.x || ty !== this.#tile.y) return false;
    this.count += 1;
    const side = 2 ** CELL_SHIFT;
    const key = Math.floor((fy - ty) * side) * side + Math.floor((fx - tx) * side);
    this.#cells.set(key, (this.#cells.get(key) ?? 0) + 1);
    if (this.#points) {
      this.#points.push(point);
      if (this.#points.length > POINTS_MAX) this.#points = undefined;
    }
    return true;
  }

  features(): Record<string, TileFeature[]> {
    if (this.#tile.z >= POINTS_MIN_ZOOM && this.#points) return pointFeatures(this.#tile, this.#points);
    const side = 2 ** CELL_SHIFT;
    const cells: TileFeature[] = [];
    for (const [key, count] of this.#cells) {
      const cx = key % side;
      const cy = Math.floor(key / side);
      cells.push(cellFeature(cx, cy, side, count));
    }
    return { cells };
  }
}

function cellFeature(cx: number, cy: number, side: number, count: number): TileFeature {
  const scale = EXTENT / side;
  return {
    type: 1,
    geometry: [[Math.floor((cx + 0.5) * scale), Math.floor((cy + 0.5) * scale)]],
    tags: { count },
  };
}

/** Points, and the tracks between consecutive ones (oldest first), in tile coordinates. */
function pointFeatures(tile: Tile, unordered: TimedPoint[]): Record<string, TileFeature[]> {
  const ordered = [...unordered].sort((a, b) => a.time - b.time);
  const at = (point: TimedPoint): [number, number] => {
    const { fx, fy } = place(point.lat, point.lon, tile.z);
    return [Math.round((fx - tile.x) * EXTENT), Math.round((fy - tile.y) * EXTENT)];
  };
  const points: TileFeature[] = [];
  const tracks: TileFeature[] = [];
  let line: [number, number][] = [];
  const flush = () => {
    if (line.length >= 2) tracks.push({ type: 2, geometry: [line], tags: { points: line.length } });
    line = [];
  };
  let previous: TimedPoint | undefined;
  for (const point of ordered) {
    const xy = at(point);
    // A point of this tile within half a unit of its east or south edge rounds onto the edge,
    // which a renderer counts as the next tile's (MapLibre drew such a point nowhere): it stays
    // on the last unit of its own tile. A line may end on the edge; it continues in the next tile.
    const own: [number, number] = [Math.min(xy[0], EXTENT - 1), Math.min(xy[1], EXTENT - 1)];
    points.push({ type: 1, geometry: [own], tags: { time: point.time / 1000 } });
    const broken =
      previous &&
      (point.time - previous.time > MOVING_MAX_GAP_MS ||
        (segmentM(previous, point) === 0 && (previous.lat !== point.lat || previous.lon !== point.lon)));
    if (broken) flush();
    const last = line.at(-1);
    if (!last || last[0] !== xy[0] || last[1] !== xy[1]) line.push(xy);
    previous = point;
  }
  flush();
  return { points, tracks };
}

/** The tile's bounds in degrees, widened by `margin` (degrees of latitude and longitude). */
function boxOf(tile: Tile, margin: { lat: number; lon: number }): NonNullable<PointsQuery['box']> {
  const bounds = tileBounds(tile.z, tile.x, tile.y);
  // Positions beyond the Mercator limit are drawn on the edge tiles.
  const maxLat = tile.y === 0 ? 90 : bounds.maxLat;
  const minLat = tile.y === 2 ** tile.z - 1 ? -90 : bounds.minLat;
  const epsilon = 1e-9;
  const box = {
    minLat: Math.max(-90, minLat - margin.lat - epsilon),
    maxLat: Math.min(90, maxLat + margin.lat + epsilon),
    minLon: bounds.minLon - margin.lon - epsilon,
    maxLon: bounds.maxLon + margin.lon + epsilon,
  };
  if (margin.lon >= 180 || box.maxLon - box.minLon >= 360) return { ...box, minLon: -180, maxLon: 180 };
  const wrap = (lon: number) => (lon > 180 ? lon - 360 : lon < -180 ? lon + 360 : lon);
  return { ...box, minLon: wrap(box.minLon), maxLon: wrap(box.maxLon) };
}

/** Reads the rows of a box and adds them (snapped by `snap`) to the builder. */
async function fromRows(db: Db, query: PointsQuery, builder: TileBuilder, snap: (p: TimedPoint) => TimedPoint) {
  for await (const rows of eachBatch(db, query, POSITION)) {
    for (const row of rows) builder.add(snap({ time: Number(row.time), lat: row.lat, lon: row.lon }));
  }
}

/**
 * The owner's tile over both scopes at exact coordinates. Over the whole history it is read
 * from the cell counts (a zoom-0 tile reads at most a few thousand rows whatever the history's
 * size) and the points of a small tile from the position index; a time range narrower than the
 * history is read from its rows.
 */
export async function ownerTile(db: Db, userId: string, tile: Tile, range: TileRange): Promise<Buffer> {
  const span = range.sinceMs !== undefined || range.untilMs !== undefined ? await timeSpan(db, userId) : undefined;
  const whole =
    !span ||
    ((range.sinceMs === undefined || range.sinceMs <= span.first) &&
      (range.untilMs === undefined || range.untilMs > span.last));
  const exact = (point: TimedPoint) => point;
  if (!whole) {
    const builder = new TileBuilder(tile);
    const query = { userId, sinceMs: range.sinceMs, untilMs: range.untilMs, box: boxOf(tile, { lat: 0, lon: 0 }) };
    await fromRows(db, query, builder, exact);
    return encodeTile(builder.features());
  }
  if (tile.z >= POINTS_MIN_ZOOM && (await tileCount(db, userId, tile.z, tile.x, tile.y)) <= POINTS_MAX) {
    const builder = new TileBuilder(tile);
    for (const row of await pointsInBox(db, { userId, box: boxOf(tile, { lat: 0, lon: 0 }) })) {
      builder.add({ time: Number(row.time), lat: row.lat, lon: row.lon });
    }
    return encodeTile(builder.features());
  }
  const outLevel = Math.min(tile.z + CELL_SHIFT, FINEST_LEVEL);
  const side = 2 ** (outLevel - tile.z);
  const cells = await tileCells(db, userId, tile, outLevel);
  return encodeTile({
    cells: cells.map((cell) => cellFeature(cell.cx - tile.x * side, cell.cy - tile.y * side, side, cell.points)),
  });
}

/**
 * A public tile: public points only, snapped to `precisionM`, placed by the snapped position.
 * Its cost grows with the public points in (a step around) the tile and the time range.
 */
export async function publicTile(
  db: Db,
  userId: string,
  precisionM: number,
  tile: Tile,
  range: TileRange,
): Promise<Buffer> {
  const bounds = tileBounds(tile.z, tile.x, tile.y);
  const farthest =
    tile.y === 0 || tile.y === 2 ** tile.z - 1 ? 90 : Math.max(Math.abs(bounds.minLat), Math.abs(bounds.maxLat));
  const margin = gridMargin(precisionM, Math.min(MAX_LAT + 5, farthest));
  const builder = new TileBuilder(tile);
  const query = {
    userId,
    scope: 'public' as const,
    sinceMs: range.sinceMs,
    untilMs: range.untilMs,
    box: boxOf(tile, margin),
  };
  await fromRows(db, query, builder, (point) => ({
    time: point.time,
    ...roundPoint(point.lat, point.lon, precisionM),
  }));
  return encodeTile(builder.features());
}
