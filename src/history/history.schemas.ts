import { Type, type Static } from 'typebox';
import { Seconds } from '../items/items.schemas.ts';
import { MAX_ZOOM } from './tiles.logic.ts';

export const RangeQuery = {
  since_time: Type.Optional(Seconds('Only points with `time >= since_time` (Unix epoch seconds).')),
  until_time: Type.Optional(Seconds('Only points with `time < until_time` (Unix epoch seconds).')),
};

export const TileParams = Type.Object({
  z: Type.String({ maxLength: 10, description: `Zoom, 0 to ${MAX_ZOOM}.` }),
  x: Type.String({ maxLength: 10, description: 'Column, 0 to 2^z - 1.' }),
  y: Type.String({ maxLength: 10, description: 'Row, 0 to 2^z - 1 (from the north).' }),
});

export const PublicTileParams = Type.Object({ ...TileParams.properties, username: Type.String({ maxLength: 100 }) });

export const TileQuery = Type.Object(RangeQuery, { additionalProperties: false });

export const Tile200 = {
  description:
    'A Mapbox Vector Tile 2.1 (extent 4096) with up to three layers: `cells` (a point per grid cell, `count`), ' +
    '`points` (`time`) and `tracks` (lines, `points`). Empty when the tile holds no point.',
  content: { 'application/vnd.mapbox-vector-tile': { schema: { type: 'string', format: 'binary' } } },
};

export const NotModified = { description: 'Not modified: the tile is still what the client has.', type: 'null' };

export const TrackParams = Type.Object({ date: Type.String({ maxLength: 20, description: 'A day, YYYY-MM-DD.' }) });

export const TrackQuery = Type.Object(
  {
    zoom: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 22,
        description: 'Simplify the line for a map at this zoom (half a pixel); absent: every point.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const Track200 = {
  description:
    'A GeoJSON Feature: a LineString of the day, oldest point first (`geometry` null with fewer than two points), ' +
    'and `properties` `date`, `timezone`, `start`, `end` (epoch seconds), `points`, `distance_m`, `duration_s`, `moving_s`.',
  content: { 'application/geo+json': { schema: { type: 'object' } } },
};

export const StatsQuery = Type.Object(
  {
    group_by: Type.Union([Type.Literal('day'), Type.Literal('month'), Type.Literal('year')], {
      default: 'month',
      description: "Days, months or years of the owner's time zone; default `month`.",
    }),
    ...RangeQuery,
  },
  { additionalProperties: false },
);
export type GroupBy = Static<typeof StatsQuery>['group_by'];

const Bbox = Type.Tuple([Type.Number(), Type.Number(), Type.Number(), Type.Number()], {
  description: 'RFC 7946 [west, south, east, north]; west > east when the box crosses the antimeridian.',
});

export const StatsSchema = Type.Object(
  {
    group_by: Type.String(),
    timezone: Type.String({ description: "The owner's time zone the groups are days, months or years of." }),
    groups: Type.Array(
      Type.Object({
        period: Type.String({ description: '`YYYY-MM-DD`, `YYYY-MM` or `YYYY`.' }),
        start: Type.Number({ description: 'Where the period starts, epoch seconds.' }),
        end: Type.Number({ description: 'Where the next one starts, epoch seconds.' }),
        points: Type.Integer(),
        distance_m: Type.Number({
          description:
            'Travelled in trips (docs/history.md "Visits and trips"): never across a gap in the data, never the ' +
            'noise of a stay, never a GPS jump.',
        }),
        days_with_data: Type.Integer(),
        bbox: Bbox,
      }),
    ),
  },
  {
    $id: 'LocationStats',
    description: 'Statistics of the location history, oldest group first; empty groups are left out.',
  },
);
export type Stats = Static<typeof StatsSchema>;
export type StatsGroup = Stats['groups'][number];
