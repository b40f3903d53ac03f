// The records of a Waypost export (format version 1, docs/data-ownership.md) as a restore
// accepts them: the API's object shapes, with the bounds the API puts on what it stores, so a
// record that could not have come from a Waypost server is refused (with the reason) rather
// than stored. Unknown fields are ignored: a later version may add some.
import { Type, type Static, type TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { SERVICE_TYPES } from '../../services/connectors/index.ts';
import { BIO_MAX, DISPLAY_NAME_MAX } from '../../users/users.rules.ts';
import { PRECISION_MAX_M } from '../../privacy/places.ts';
import { TEXT_MAX, POST_MEDIA_MAX } from '../../posts/posts.schemas.ts';
import { CAPTION_MAX } from '../../media/media.schemas.ts';
import { DESCRIPTION_MAX, NAME_MAX, SOURCES_MAX, TEXT_FILTER_MAX } from '../../views/views.schemas.ts';
import { TIME_LIMIT_S } from '../../lib/time.ts';

/** Ids as the API makes them (ULIDs), or any other short URL-safe id a later version might use. */
export const Id = Type.String({ pattern: '^[0-9A-Za-z_-]{1,64}$' });
const Scope = Type.Union([Type.Literal('public'), Type.Literal('private')]);
/** Epoch seconds within the range the API takes. */
const Seconds = Type.Number({ minimum: -TIME_LIMIT_S, maximum: TIME_LIMIT_S });
const Lat = Type.Number({ minimum: -90, maximum: 90 });
const Lon = Type.Number({ minimum: -180, maximum: 180 });
const Point = Type.Object({ lat: Lat, lon: Lon });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const Source = Nullable(Type.String({ maxLength: 100 }));

export const SettingsRecord = Type.Object({
  default_scopes: Type.Object({ posts: Scope, media: Scope, locations: Scope }),
  timezone: Type.String({ minLength: 1, maxLength: 100 }),
  public_location_precision_m: Type.Integer({ minimum: 0, maximum: PRECISION_MAX_M }),
  display_name: Type.String({ minLength: 1, maxLength: DISPLAY_NAME_MAX }),
  bio: Type.String({ maxLength: BIO_MAX }),
  privacy_zones: Type.Optional(
    Type.Array(Type.Object({ name: Type.String(), lat: Lat, lon: Lon, radius_m: Type.Number() }), { maxItems: 100 }),
  ),
});

export const ServiceRecord = Type.Object({
  id: Id,
  type: Type.Union(SERVICE_TYPES.map((type) => Type.Literal(type))),
  name: Type.String({ minLength: 1, maxLength: 100 }),
  enabled: Type.Boolean(),
  config: Type.Record(
    Type.String({ maxLength: 100 }),
    Type.Union([Type.String({ maxLength: 4096 }), Type.Number(), Type.Boolean()]),
    { maxProperties: 50 },
  ),
  status: Type.Union([Type.Literal('ok'), Type.Literal('error')]),
  last_error: Nullable(Type.String({ maxLength: 4096 })),
  created_at: Seconds,
});

export const GroupRecord = Type.Object({
  id: Id,
  name: Type.String({ minLength: 1, maxLength: 100 }),
  service_ids: Type.Array(Id, { maxItems: 100 }),
  created_at: Seconds,
});

export const ViewRecord = Type.Object({
  id: Id,
  name: Type.String({ minLength: 1, maxLength: NAME_MAX }),
  description: Type.String({ maxLength: DESCRIPTION_MAX }),
  kinds: Type.Array(Type.Union(['posts', 'media', 'locations'].map((k) => Type.Literal(k))), {
    minItems: 1,
    maxItems: 3,
    uniqueItems: true,
  }),
  filters: Type.Object({
    since_time: Type.Optional(Seconds),
    until_time: Type.Optional(Seconds),
    bbox: Type.Optional(Type.Array(Type.Number(), { minItems: 4, maxItems: 4 })),
    scope: Type.Optional(Scope),
    sources: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: SOURCES_MAX })),
    text: Type.Optional(Type.String({ maxLength: TEXT_FILTER_MAX })),
  }),
  scope: Scope,
  created_at: Seconds,
  updated_at: Seconds,
});

export const MediumRecord = Type.Object({
  id: Id,
  scope: Scope,
  kind: Type.Union(['image', 'video', 'audio', 'other'].map((k) => Type.Literal(k))),
  mime_type: Type.String({ minLength: 3, maxLength: 100, pattern: '^[a-z0-9.+-]+/[a-z0-9.+-]+$' }),
  size: Type.Integer({ minimum: 0 }),
  sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
  width: Nullable(Type.Number({ minimum: 0, maximum: 1e6 })),
  height: Nullable(Type.Number({ minimum: 0, maximum: 1e6 })),
  duration: Nullable(Type.Number({ minimum: 0, maximum: 1e9 })),
  time: Seconds,
  location: Nullable(Point),
  caption: Type.String({ maxLength: CAPTION_MAX * 2 }),
  created_at: Seconds,
  file: Type.String({ maxLength: 200 }),
});

export const DeliveryRecord = Type.Object({
  service_id: Id,
  status: Type.Union(['pending', 'delivered', 'failed', 'cancelled'].map((s) => Type.Literal(s))),
  attempts: Type.Integer({ minimum: 0, maximum: 1000 }),
  remote_url: Nullable(Type.String({ maxLength: 4096 })),
  remote_id: Type.Optional(Nullable(Type.String({ maxLength: 4096 }))),
  last_error: Nullable(Type.String({ maxLength: 4096 })),
  updated_at: Seconds,
});

export const PostRecord = Type.Object({
  id: Id,
  text: Type.String({ maxLength: TEXT_MAX * 2 }),
  scope: Scope,
  time: Seconds,
  created_at: Seconds,
  media_ids: Type.Array(Id, { maxItems: POST_MEDIA_MAX }),
  location: Nullable(Point),
  source: Source,
  deliveries: Type.Optional(Type.Array(DeliveryRecord, { maxItems: 100 })),
});

/** One GeoJSON Feature of locations.geojsonseq. */
export const LocationRecord = Type.Object({
  type: Type.Literal('Feature'),
  geometry: Type.Object({
    type: Type.Literal('Point'),
    coordinates: Type.Union([Type.Tuple([Lon, Lat]), Type.Tuple([Lon, Lat, Type.Union([Type.Number(), Type.Null()])])]),
  }),
  properties: Type.Object({
    id: Id,
    scope: Scope,
    time: Seconds,
    accuracy: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 1e7 }))),
    speed: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 1e5 }))),
    heading: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 360 }))),
    alt: Type.Optional(Nullable(Type.Number({ minimum: -1e5, maximum: 1e6 }))),
    source: Type.Optional(Source),
    created_at: Type.Optional(Seconds),
  }),
});

export type SettingsRecord = Static<typeof SettingsRecord>;
export type ServiceRecord = Static<typeof ServiceRecord>;
export type GroupRecord = Static<typeof GroupRecord>;
export type ViewRecord = Static<typeof ViewRecord>;
export type MediumRecord = Static<typeof MediumRecord>;
export type PostRecord = Static<typeof PostRecord>;
export type LocationRecord = Static<typeof LocationRecord>;

/** A checker: the value typed, or a message naming the first field at fault. */
export function checker<T extends TSchema>(schema: T) {
  const compiled = Compile(schema);
  return (value: unknown): { ok: true; value: Static<T> } | { ok: false; message: string } => {
    if (compiled.Check(value)) return { ok: true, value };
    const first = [...compiled.Errors(value)][0];
    const path = first?.instancePath ? first.instancePath : '/';
    return { ok: false, message: `${path} ${first?.message ?? 'is invalid'}` };
  };
}
