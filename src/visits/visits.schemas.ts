// Visits, trips, corrections and the year in review (docs/api.md "Visits and trips").
import { Type, type Static } from 'typebox';
import { collectionParams, Seconds } from '../items/items.schemas.ts';
import { PlaceRefSchema } from '../places/places.schemas.ts';

export const ModeSchema = Type.Union(
  ['walking', 'cycling', 'driving', 'train', 'flight', 'unknown'].map((mode) => Type.Literal(mode)),
  { description: 'Guessed from the speeds of the trip; `unknown` when they do not tell.' },
);

export const VisitSchema = Type.Object(
  {
    id: Type.String(),
    place_id: Type.String(),
    place: PlaceRefSchema,
    lat: Type.Number({ description: 'The middle of the points of the stay.' }),
    lon: Type.Number(),
    start_time: Type.Number({ description: 'Unix epoch seconds.' }),
    end_time: Type.Number({ description: 'Unix epoch seconds.' }),
    point_count: Type.Integer(),
    confidence: Type.Number({ minimum: 0, maximum: 1, description: 'How sure the detection is, 0 to 1.' }),
  },
  { $id: 'Visit', description: 'A time the person stayed in one place.' },
);
export type VisitJson = Static<typeof VisitSchema>;

export const TripSchema = Type.Object(
  {
    id: Type.String(),
    start_time: Type.Number({ description: 'Unix epoch seconds.' }),
    end_time: Type.Number({ description: 'Unix epoch seconds.' }),
    distance_m: Type.Number({ description: 'Travelled within the trip, never across a gap in the data.' }),
    mode: ModeSchema,
    from_visit_id: Type.Union([Type.String(), Type.Null()], { description: 'null after a gap in the data.' }),
    to_visit_id: Type.Union([Type.String(), Type.Null()], { description: 'null before a gap in the data.' }),
  },
  { $id: 'Trip', description: 'The movement between two visits.' },
);
export type TripJson = Static<typeof TripSchema>;

/** Visits and trips overlapping the range, oldest first unless `order` says otherwise. */
export const VisitsQuery = Type.Object(
  {
    ...collectionParams,
    since_time: Type.Optional(Seconds('Only those that end after `since_time` (Unix epoch seconds).')),
    until_time: Type.Optional(Seconds('Only those that start before `until_time` (Unix epoch seconds).')),
    order: Type.Union([Type.Literal('asc'), Type.Literal('desc')], {
      default: 'asc',
      description: 'By `start_time`, then `id`: oldest first (`asc`, the default) or newest first.',
    }),
  },
  { additionalProperties: false },
);
export type VisitsParams = Static<typeof VisitsQuery>;

export const VisitCorrectionBody = Type.Union(
  [
    Type.Object(
      { place_id: Type.String({ minLength: 1, maxLength: 64, description: 'The stay was at this place.' }) },
      { additionalProperties: false },
    ),
    Type.Object(
      { split_at: Seconds('Two stays, before and after this instant (inside the visit).') },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        merge_with: Type.String({
          minLength: 1,
          maxLength: 64,
          description: 'Another visit: the two, and what lies between them, are one stay.',
        }),
      },
      { additionalProperties: false },
    ),
    Type.Object(
      { not_a_stay: Type.Literal(true, { description: 'No stay: the time is part of the trip around it.' }) },
      { additionalProperties: false },
    ),
  ],
  { description: 'Exactly one correction. Each is kept and applied again whenever the day is detected anew.' },
);
export type VisitCorrection = Static<typeof VisitCorrectionBody>;

export const SummaryQuery = Type.Object(
  {
    year: Type.Integer({ minimum: 1900, maximum: 5000, description: 'In the owner’s time zone.' }),
    month: Type.Optional(Type.Integer({ minimum: 1, maximum: 12 })),
  },
  { additionalProperties: false },
);
export type SummaryParams = Static<typeof SummaryQuery>;

export const SummarySchema = Type.Object(
  {
    year: Type.Integer(),
    month: Type.Union([Type.Integer(), Type.Null()]),
    timezone: Type.String({ description: 'The owner’s time zone the year or month is taken in.' }),
    distance_m: Type.Number({ description: 'Travelled in trips.' }),
    distance_by_mode: Type.Record(Type.String(), Type.Number(), { description: 'Metres by trip mode.' }),
    countries: Type.Array(Type.Object({ code: Type.String(), name: Type.String(), days: Type.Integer() }), {
      description: 'Countries with a visit, by the days with a visit there, most first.',
    }),
    cities: Type.Array(
      Type.Object({ name: Type.String(), country: Type.Union([Type.String(), Type.Null()]), days: Type.Integer() }),
      { description: 'Towns and cities with a visit, by days, most first.' },
    ),
    places: Type.Array(
      Type.Object({
        place_id: Type.String(),
        name: Type.Union([Type.String(), Type.Null()]),
        city: Type.Union([Type.String(), Type.Null()]),
        visits: Type.Integer(),
        seconds: Type.Number(),
      }),
      { description: 'The places where the most time was spent, most first (at most 20).' },
    ),
    longest_trip: Type.Union([Type.Object(TripSchema.properties), Type.Null()]),
    new_places: Type.Array(PlaceRefSchema, {
      description: 'Places first visited in the period, oldest first.',
    }),
  },
  { $id: 'LocationSummary', description: 'A year (or a month) in review.' },
);
export type Summary = Static<typeof SummarySchema>;
