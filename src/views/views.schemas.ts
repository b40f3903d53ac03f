// The view object (docs/api.md "Objects": view): a saved query over one person's items.
import { Type, type Static } from 'typebox';
import { collectionQuery, ScopeSchema, Seconds } from '../items/items.schemas.ts';
import { BBOX_RULES } from '../locations/locations.schemas.ts';

export const NAME_MAX = 100;
export const DESCRIPTION_MAX = 2000;
export const TEXT_FILTER_MAX = 200;
export const SOURCES_MAX = 100;
/** How many views one person may keep: GET /views answers with all of them at once. */
export const VIEWS_PER_USER_MAX = 500;

export const KindSchema = Type.Union([Type.Literal('posts'), Type.Literal('media'), Type.Literal('locations')]);

const FILTER_FIELDS = {
  since_time: Type.Optional(Seconds('Only items with `time >= since_time` (Unix epoch seconds).')),
  until_time: Type.Optional(Seconds('Only items with `time < until_time` (Unix epoch seconds).')),
  bbox: Type.Optional(
    Type.Array(Type.Number(), {
      minItems: 4,
      maxItems: 4,
      description:
        '`[min_lon, min_lat, max_lon, max_lat]` (RFC 7946 order) in degrees, longitudes from -180 to 180, ' +
        'latitudes from -90 to 90, `min_lat <= max_lat`. Only locations, and posts and media that have a ' +
        `location, inside the box. ${BBOX_RULES}`,
    }),
  ),
  scope: Type.Optional(ScopeSchema),
  sources: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
      minItems: 1,
      maxItems: SOURCES_MAX,
      uniqueItems: true,
      description: 'Only items that came from one of these services (service ids).',
    }),
  ),
  text: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: TEXT_FILTER_MAX,
      description:
        "Only items whose text contains this, ignoring the case of ASCII letters: a post's `text`, a medium's " +
        '`caption`. Locations have no text, so a view with this filter shows none.',
    }),
  ),
};

export const FiltersSchema = Type.Object(FILTER_FIELDS, {
  additionalProperties: false,
  description: 'Every filter given must hold (they are combined with AND); `{}` matches every item of the kinds.',
});
export type Filters = Static<typeof FiltersSchema>;

const VIEW_FIELDS = {
  name: Type.String({ maxLength: NAME_MAX, description: `1 to ${NAME_MAX} characters after trimming.` }),
  description: Type.String({ maxLength: DESCRIPTION_MAX }),
  kinds: Type.Array(KindSchema, {
    minItems: 1,
    uniqueItems: true,
    description: 'Which kinds of item the view shows.',
  }),
  filters: FiltersSchema,
  scope: Type.Union([Type.Literal('public'), Type.Literal('private')], {
    description:
      'A `public` view is readable by anyone and only ever shows public items. A `private` view is read with the ' +
      "owner's token holding both `get_views` and `get_private_scope`, and shows public and private items.",
  }),
};

export const ViewSchema = Type.Object(
  {
    id: Type.String(),
    username: Type.String({ description: 'Whose items the view shows.' }),
    ...VIEW_FIELDS,
    created_at: Type.Number({ description: 'Unix epoch seconds.' }),
    updated_at: Type.Number({ description: 'Unix epoch seconds.' }),
  },
  { $id: 'View', description: "A saved query over one person's posts, media and locations." },
);
export type View = Static<typeof ViewSchema>;

export const NewViewBody = Type.Object(
  {
    name: VIEW_FIELDS.name,
    description: Type.Optional(VIEW_FIELDS.description),
    kinds: Type.Optional(VIEW_FIELDS.kinds),
    filters: Type.Optional(FiltersSchema),
    scope: Type.Optional(VIEW_FIELDS.scope),
  },
  {
    additionalProperties: false,
    description: 'Defaults: `description` "", `kinds` all three, `filters` {}, `scope` `private`.',
  },
);

export const ViewChangeBody = Type.Object(
  {
    name: Type.Optional(VIEW_FIELDS.name),
    description: Type.Optional(VIEW_FIELDS.description),
    kinds: Type.Optional(VIEW_FIELDS.kinds),
    filters: Type.Optional(FiltersSchema),
    scope: Type.Optional(VIEW_FIELDS.scope),
  },
  {
    additionalProperties: false,
    description: 'Only the fields sent change; `filters`, when sent, replaces the whole filters object.',
  },
);
/** A new view's fields (`NewViewBody`) or a change (`ViewChangeBody`): every field optional. */
export type ViewInput = Static<typeof ViewChangeBody>;

export const ViewItemsQuery = collectionQuery({});
