import { Type, type Static } from 'typebox';
import { collectionQuery, ScopeSchema, Seconds } from '../items/items.schemas.ts';

const Nullable = (description: string) => Type.Union([Type.Number(), Type.Null()], { description });

export const LocationSchema = Type.Object(
  {
    id: Type.String(),
    username: Type.String(),
    scope: ScopeSchema,
    time: Type.Number({ description: 'When the point was recorded, Unix epoch seconds.' }),
    lat: Type.Number({ minimum: -90, maximum: 90 }),
    lon: Type.Number({ minimum: -180, maximum: 180 }),
    alt: Nullable('Metres above the WGS84 ellipsoid (as GPS reports it). Public points above precision 0: null.'),
    accuracy: Nullable("Horizontal accuracy in metres. Public points above precision 0: the owner's precision."),
    speed: Nullable('Metres per second. Public points above precision 0: null.'),
    heading: Nullable('Degrees clockwise from true north, 0 to 360. Public points above precision 0: null.'),
    source: Type.Union([Type.String(), Type.Null()], {
      description: 'The id of the service it came from, or null; null in every public answer (a service is private).',
    }),
    created_at: Type.Number({ description: 'When Waypost stored it, Unix epoch seconds.' }),
  },
  {
    $id: 'Location',
    description:
      "A point of a location history. Public points are served to strangers rounded to the owner's " +
      '`public_location_precision_m`, with nothing else measured above precision 0; the owner reading with ' +
      '`get_private_scope` gets them exact.',
  },
);
export type Location = Static<typeof LocationSchema>;

export const BBOX_PATTERN = '^-?[0-9.]+,-?[0-9.]+,-?[0-9.]+,-?[0-9.]+$';

/** What a box contains (src/lib/box.ts), for the collections and the views alike. */
export const BBOX_RULES =
  'Edges are inclusive. `min_lon <= max_lon` covers the longitudes from `min_lon` to `max_lon` (equal: one ' +
  'meridian; with `min_lat = max_lat` too, one point); `min_lon > max_lon` crosses the antimeridian (RFC 7946 ' +
  '5.2): `lon >= min_lon` or `lon <= max_lon`. -180 and 180 are one meridian, so a box reaching one reaches the ' +
  'other, and `-180,min_lat,180,max_lat` spans all 360 degrees. A pole is on every meridian: a point at latitude 90 (-90) ' +
  'is in every box whose `max_lat` (`min_lat`) reaches it. A public point is judged where it is served, rounded ' +
  "to the owner's `public_location_precision_m`, and so are the paging and the `Link` to the next page.";

export const LocationsQuery = collectionQuery({
  bbox: Type.Optional(
    Type.String({
      maxLength: 100,
      description:
        '`min_lon,min_lat,max_lon,max_lat`: four plain decimal numbers in degrees (digits, an optional leading ' +
        '`-` and decimal point; no exponent, no spaces), longitudes from -180 to 180, latitudes from -90 to 90, ' +
        `\`min_lat <= max_lat\`; anything else is 400. ${BBOX_RULES}`,
    }),
  ),
  format: Type.Optional(
    Type.Union(
      [
        Type.Literal('json'),
        Type.Literal('geojson'),
        Type.Literal('gpx'),
        Type.Literal('csv'),
        Type.Literal('geojsonseq'),
      ],
      {
        description:
          '`json` (default), `geojson` (RFC 7946 FeatureCollection, also chosen by `Accept: application/geo+json`), ' +
          '`gpx` (GPX 1.1 track, also `Accept: application/gpx+xml`), `csv` (RFC 4180, a header row) or ' +
          '`geojsonseq` (RFC 8142 GeoJSON Text Sequence, one Feature per record).',
      },
    ),
  ),
  all: Type.Optional(
    Type.Boolean({
      description:
        '`true`: the whole collection (or its `since_time`/`until_time` range) in one streamed answer, oldest first, ' +
        'with a `Content-Disposition` filename; `count` and `order` do not apply, `cursor` and `bbox` are 400.',
    }),
  ),
});
export type LocationsParams = Static<typeof LocationsQuery>;

export const LOCATION_BATCH_MAX = 1000;

export const LocationBatchBody = Type.Union(
  [
    Type.Array(Type.Unknown(), {
      description:
        'Points `{time, lat, lon, alt?, accuracy?, speed?, heading?, scope?}`; `time` in Unix epoch seconds.',
    }),
    Type.Object(
      { type: Type.Literal('FeatureCollection'), features: Type.Array(Type.Unknown()) },
      {
        additionalProperties: true,
        description:
          'GeoJSON: Point features, `coordinates: [lon, lat, alt?]`, `properties.time` (epoch seconds or RFC 3339; ' +
          '`timestamp` also read), and optional `accuracy`, `speed`, `heading`, `scope`; other properties are ignored.',
      },
    ),
  ],
  { description: `Up to ${LOCATION_BATCH_MAX} points, checked one by one; one bad point rejects the whole batch.` },
);

export const LocationBatchResult = Type.Object({
  stored: Type.Integer({ description: 'Points stored now.' }),
  duplicates: Type.Integer({ description: 'Points already stored (same time, lat and lon), not stored again.' }),
});

/** DELETE /locations: the range of points to delete. */
export const RangeQuery = Type.Object(
  {
    since_time: Seconds('Delete points with `time >= since_time` (Unix epoch seconds). Required.'),
    until_time: Seconds('... and `time < until_time`. Required.'),
    scope: Type.Optional(ScopeSchema),
  },
  { additionalProperties: false },
);
