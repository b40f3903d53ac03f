// The Waypost export format (docs/data-ownership.md), declared once for both sides: its name
// and version, where each file lies in the archive, and each file's records. The export
// (export.logic.ts) writes them; a restore (restore/) reads them back as untrusted input.
import { Type, type Static, type TLiteral, type TUnion } from 'typebox';
import { SERVICE_TYPES } from '../services/connectors/types.ts';
import { BIO_MAX, DISPLAY_NAME_MAX } from '../users/users.rules.ts';
import { PRECISION_MAX_M } from '../privacy/places.ts';
import { TEXT_MAX, POST_MEDIA_MAX } from '../posts/posts.schemas.ts';
import { CAPTION_MAX } from '../media/media.schemas.ts';
import { TIME_LIMIT_S } from '../lib/time.ts';
import type { CorrectionKind } from '../db/schema.visits.ts';
import { DESCRIPTION_MAX, NAME_MAX, SOURCES_MAX, TEXT_FILTER_MAX } from '../views/views.schemas.ts';
import { PLACE_NAME_MAX, RADIUS_MAX_M, RADIUS_MIN_M } from '../places/places.schemas.ts';

/** The format's name: README.txt's `format`, and the `format` of an import that restores one. */
export const EXPORT_FORMAT = 'waypost-export';
/** The version this server writes. */
export const EXPORT_VERSION = 1;

/** The head of README.txt says this is a Waypost export. */
export const EXPORT_MARKER = new RegExp(`^format: ${EXPORT_FORMAT}\\r?\\n`);

/** The files of an archive, by what they hold (media files are under `archivePath`). */
export const ENTRIES = {
  readme: 'README.txt',
  settings: 'settings.json',
  services: 'services.json',
  groups: 'groups.json',
  views: 'views.json',
  posts: 'posts.jsonl',
  media: 'media.jsonl',
  locations: 'locations.geojsonseq',
  places: 'places.json',
  visitCorrections: 'visit-corrections.json',
  missingMedia: 'missing-media.txt',
} as const;

/** The folder of the media files: `archivePath`. */
export const MEDIA_FOLDER = 'media';

/** RFC 8142: every GeoJSON text of a sequence starts with RS (and ends with LF). */
export const RS = '\u001e';

/** Who the archive belongs to, as README.txt names them. */
export interface ExportOwner {
  id: string;
  username: string;
}

const EXTENSIONS: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/avif': 'avif',
  'image/heic': 'heic',
  'image/heif': 'heif',
  'image/tiff': 'tif',
  'image/bmp': 'bmp',
  'video/mp4': 'mp4',
  'video/quicktime': 'mov',
  'video/webm': 'webm',
  'video/x-matroska': 'mkv',
  'video/x-msvideo': 'avi',
  'audio/mpeg': 'mp3',
  'audio/mp4': 'm4a',
  'audio/ogg': 'ogg',
  'audio/opus': 'opus',
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/flac': 'flac',
  'audio/x-flac': 'flac',
  'audio/aac': 'aac',
};

/** Where a medium's original lies in the archive: one file per content, named by its hash. */
export function archivePath(sha256: string, mimeType: string): string {
  const ext = EXTENSIONS[mimeType] ?? /^[a-z0-9]{1,8}$/.exec(mimeType.split('/')[1] ?? '')?.[0] ?? 'bin';
  return `${MEDIA_FOLDER}/${sha256}.${ext}`;
}

// The records of version 1 as a restore accepts them: the API's object shapes, with the bounds
// the API puts on what it stores, so a record that could not have come from a Waypost server
// is refused (with the reason) rather than stored. Unknown fields are ignored: a later version
// may add some.

/** Ids as the API makes them (ULIDs), or any other short URL-safe id a later version might use. */
export const Id = Type.String({ pattern: '^[0-9A-Za-z_-]{1,64}$' });
/** One of `values`: a union of their literals, typed as one of them. */
const oneOf = <const V extends string>(values: readonly V[]) =>
  Type.Union(values.map((value) => Type.Literal(value))) as unknown as TUnion<[TLiteral<V>]>;
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
  type: oneOf(SERVICE_TYPES),
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
  kinds: Type.Array(oneOf(['posts', 'media', 'locations']), {
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
  kind: oneOf(['image', 'video', 'audio', 'other']),
  mime_type: Type.String({ minLength: 3, maxLength: 100, pattern: '^[a-z0-9.+-]+/[a-z0-9.+-]+$' }),
  size: Type.Integer({ minimum: 0 }),
  sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
  width: Nullable(Type.Number({ minimum: 0, maximum: 1e6 })),
  height: Nullable(Type.Number({ minimum: 0, maximum: 1e6 })),
  duration: Nullable(Type.Number({ minimum: 0, maximum: 1e9 })),
  time: Seconds,
  location: Nullable(Point),
  /** Not in archives made before places: a medium with a location then took it from its file. */
  location_source: Type.Optional(Nullable(oneOf(['exif', 'history']))),
  caption: Type.String({ maxLength: CAPTION_MAX * 2 }),
  /** The name the file was uploaded under; not in archives made before file names were kept. */
  file_name: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  created_at: Seconds,
  file: Type.String({ maxLength: 200 }),
});

export const DeliveryRecord = Type.Object({
  service_id: Id,
  status: oneOf(['pending', 'delivered', 'failed', 'cancelled']),
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

/**
 * One place of places.json. `city` and `country` are the label the exporting server found; a
 * restore labels the place again from its position, as every place on the server is labelled.
 */
export const PlaceRecord = Type.Object({
  id: Id,
  name: Nullable(Type.String({ maxLength: PLACE_NAME_MAX })),
  lat: Lat,
  lon: Lon,
  radius_m: Type.Number({ minimum: RADIUS_MIN_M, maximum: RADIUS_MAX_M }),
  city: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  country: Type.Optional(Nullable(Type.String({ pattern: '^[A-Z]{2}$' }))),
  created_at: Seconds,
});

/** One correction of visit-corrections.json: what the person said of a stretch of time. */
export const VisitCorrectionRecord = Type.Object({
  id: Id,
  kind: oneOf<CorrectionKind>(['place', 'split', 'merge', 'not_a_stay']),
  start_time: Seconds,
  end_time: Seconds,
  place_id: Nullable(Id),
  created_at: Seconds,
});

export type SettingsRecord = Static<typeof SettingsRecord>;
export type ServiceRecord = Static<typeof ServiceRecord>;
export type GroupRecord = Static<typeof GroupRecord>;
export type ViewRecord = Static<typeof ViewRecord>;
export type MediumRecord = Static<typeof MediumRecord>;
export type PostRecord = Static<typeof PostRecord>;
export type LocationRecord = Static<typeof LocationRecord>;
export type PlaceRecord = Static<typeof PlaceRecord>;
export type VisitCorrectionRecord = Static<typeof VisitCorrectionRecord>;

/**
 * Every field of a record, of any type: what the export is checked against where the API object
 * it writes is typed more loosely than the record (a medium's hash and size are null for a
 * stranger; a GeoJSON position is an array). Objects within are checked the same way.
 */
export type Fields<R> = {
  [K in keyof R]-?: R[K] extends readonly unknown[] ? unknown : R[K] extends object ? Fields<R[K]> : unknown;
};
