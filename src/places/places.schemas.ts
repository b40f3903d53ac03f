// The place object (docs/api.md "Objects": place): where a person stays, found from their visits
// or drawn by them, named by them or labelled offline by the nearest town and its country.
import { Type, type Static } from 'typebox';

export const PLACE_NAME_MAX = 100;
/** A place's reach: from a room to a campus. */
export const RADIUS_MIN_M = 10;
export const RADIUS_MAX_M = 5000;
/** The reach of a place made from a visit (docs/history.md "Visits and trips"). */
export const DEFAULT_RADIUS_M = 100;
/** How many places one person may keep: GET /places answers with all of them at once. */
export const PLACES_PER_USER_MAX = 10_000;

const Lat = Type.Number({ minimum: -90, maximum: 90, description: 'Degrees (WGS 84).' });
const Lon = Type.Number({ minimum: -180, maximum: 180, description: 'Degrees (WGS 84).' });
const Radius = Type.Number({
  minimum: RADIUS_MIN_M,
  maximum: RADIUS_MAX_M,
  description: `Metres from the centre that belong to the place, ${RADIUS_MIN_M} to ${RADIUS_MAX_M}.`,
});
const Name = Type.String({
  maxLength: PLACE_NAME_MAX,
  description: `1 to ${PLACE_NAME_MAX} characters after trimming.`,
});

/** What a visit says of its place. */
export const PlaceRefSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.Union([Type.String(), Type.Null()], { description: "The person's name for it; null until named." }),
    lat: Type.Number(),
    lon: Type.Number(),
    city: Type.Union([Type.String(), Type.Null()], {
      description: 'The nearest town or city (GeoNames, offline); null far from any.',
    }),
    country: Type.Union([Type.String(), Type.Null()], { description: 'ISO 3166-1 alpha-2; null at sea.' }),
  },
  { description: 'The place of a visit.' },
);
export type PlaceRef = Static<typeof PlaceRefSchema>;

export const PlaceSchema = Type.Object(
  {
    ...PlaceRefSchema.properties,
    radius_m: Type.Number(),
    visits: Type.Integer({ description: 'How many visits are at the place.' }),
    created_at: Type.Number({ description: 'Unix epoch seconds.' }),
  },
  { $id: 'Place', description: 'Where the person stays: visits within `radius_m` of the centre belong to it.' },
);
export type Place = Static<typeof PlaceSchema>;

export const NewPlaceBody = Type.Object(
  { name: Name, lat: Lat, lon: Lon, radius_m: Type.Optional(Radius) },
  { additionalProperties: false },
);
export type NewPlace = Static<typeof NewPlaceBody>;

export const PlaceChangeBody = Type.Object(
  {
    name: Type.Optional(Type.Union([Name, Type.Null()], { description: 'null forgets the name.' })),
    lat: Type.Optional(Lat),
    lon: Type.Optional(Lon),
    radius_m: Type.Optional(Radius),
    merge_into: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description:
          'Another place of the person: its visits become that place’s, and this one is deleted. Sent alone.',
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type PlaceChange = Static<typeof PlaceChangeBody>;
