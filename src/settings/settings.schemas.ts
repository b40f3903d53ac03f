// The settings object (docs/api.md "Objects": settings). Default scopes are one nested object,
// `default_scopes: {posts, media, locations}`, rather than three flat fields: it reads as what
// it is, one choice per kind, and a partial change names only the kinds it changes.
import { Type, type Static } from 'typebox';
import { ScopeSchema } from '../items/items.schemas.ts';
import { BIO_MAX, DISPLAY_NAME_MAX } from '../users/users.rules.ts';
import { PRECISION_MAX_M } from '../privacy/places.ts';
import { ZONE_LAT_MAX, ZONE_NAME_MAX, ZONE_RADIUS_MAX_M, ZONE_RADIUS_MIN_M, ZONES_MAX } from '../privacy/zones.ts';

const TIMEZONE_DESCRIPTION =
  'IANA time zone name (e.g. `Europe/Berlin`), used for camera times that carry no offset. Default `UTC`.';
const PRECISION_DESCRIPTION =
  `Public locations (points, and the location of public posts and media) are served rounded to a grid of this ` +
  `many metres, 0 to ${PRECISION_MAX_M}; 0 serves them exactly. Default 1000.`;

const ZONES_DESCRIPTION =
  `Circles whose points strangers never see, at most ${ZONES_MAX}: public points inside are left out of every ` +
  'public answer, and public posts and media inside are shown with `location: null`. A zone hides whole cells of ' +
  'a grid as wide as its radius (or as the precision, when coarser): up to about 2.5 radii around its centre ' +
  '(docs/privacy.md "Privacy zones"). The owner still sees everything. Setting the list replaces it.';

const ZoneSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: ZONE_NAME_MAX, description: 'What the zone is, for its owner.' }),
    lat: Type.Number({ minimum: -ZONE_LAT_MAX, maximum: ZONE_LAT_MAX, description: 'Centre latitude, degrees.' }),
    lon: Type.Number({ minimum: -180, maximum: 180, description: 'Centre longitude, degrees.' }),
    radius_m: Type.Number({
      minimum: ZONE_RADIUS_MIN_M,
      maximum: ZONE_RADIUS_MAX_M,
      description: `Radius in metres, ${ZONE_RADIUS_MIN_M} to ${ZONE_RADIUS_MAX_M}.`,
    }),
  },
  { additionalProperties: false },
);

export const SettingsSchema = Type.Object(
  {
    default_scopes: Type.Object(
      { posts: ScopeSchema, media: ScopeSchema, locations: ScopeSchema },
      {
        description:
          'The scope an item gets when the request that creates it names none. ' +
          'Defaults: posts `public`, media `private`, locations `private`.',
      },
    ),
    timezone: Type.String({ description: TIMEZONE_DESCRIPTION }),
    public_location_precision_m: Type.Integer({ description: PRECISION_DESCRIPTION }),
    privacy_zones: Type.Array(ZoneSchema, { description: ZONES_DESCRIPTION }),
    display_name: Type.String({ description: 'Shown on the public profile, `GET /users/<username>`.' }),
    bio: Type.String({ description: 'Shown on the public profile, `GET /users/<username>`.' }),
  },
  { $id: 'Settings', description: "The token owner's settings." },
);
/** The settings object of the API, in its field names (settings.logic.ts `Settings` is the item code's). */
export type SettingsObject = Static<typeof SettingsSchema>;

export const SettingsChangeBody = Type.Object(
  {
    default_scopes: Type.Optional(
      Type.Object(
        {
          posts: Type.Optional(ScopeSchema),
          media: Type.Optional(ScopeSchema),
          locations: Type.Optional(ScopeSchema),
        },
        { additionalProperties: false, description: 'Only the kinds named change.' },
      ),
    ),
    timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: TIMEZONE_DESCRIPTION })),
    public_location_precision_m: Type.Optional(
      Type.Integer({ minimum: 0, maximum: PRECISION_MAX_M, description: PRECISION_DESCRIPTION }),
    ),
    privacy_zones: Type.Optional(Type.Array(ZoneSchema, { maxItems: ZONES_MAX, description: ZONES_DESCRIPTION })),
    display_name: Type.Optional(
      Type.String({
        maxLength: DISPLAY_NAME_MAX,
        description: `1 to ${DISPLAY_NAME_MAX} characters; surrounding spaces are trimmed.`,
      }),
    ),
    bio: Type.Optional(Type.String({ maxLength: BIO_MAX, description: `Up to ${BIO_MAX} characters.` })),
  },
  { additionalProperties: false },
);
export type SettingsObjectChange = Static<typeof SettingsChangeBody>;
