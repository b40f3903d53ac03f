import { Type, type Static } from 'typebox';
import { collectionQuery, ScopeSchema } from '../items/items.schemas.ts';
import { literalUnion } from '../lib/literals.ts';

export const TEXT_MAX = 5000;
export const POST_MEDIA_MAX = 20;

const Point = Type.Object(
  { lat: Type.Number({ minimum: -90, maximum: 90 }), lon: Type.Number({ minimum: -180, maximum: 180 }) },
  { additionalProperties: false },
);

/** Where sending a post to a service stands (also in `Delivery` below). */
export const DeliveryStatusSchema = literalUnion(['pending', 'delivered', 'failed', 'cancelled']);
export const EditStatusSchema = literalUnion(['pending', 'delivered', 'failed', 'unsupported']);
const EditFields = {
  edit_status: Type.Union([EditStatusSchema, Type.Null()], {
    description:
      'How the latest edit of the text reached the service: null when the post was never edited after this ' +
      'delivery, `unsupported` for services that take no edits (Bluesky, webhooks).',
  }),
  edit_error: Type.Union([Type.String(), Type.Null()], { description: "The last edit attempt's error, if any." }),
};

/** The state of sending a post to one service, as its owner sees it on the post. */
const PostDeliverySchema = Type.Object({
  service_id: Type.String(),
  status: DeliveryStatusSchema,
  attempts: Type.Integer(),
  remote_url: Type.Union([Type.String(), Type.Null()]),
  remote_id: Type.Union([Type.String(), Type.Null()]),
  last_error: Type.Union([Type.String(), Type.Null()]),
  ...EditFields,
  updated_at: Type.Number(),
});
export type Delivery = Static<typeof PostDeliverySchema>;

export const PostSchema = Type.Object(
  {
    id: Type.String(),
    username: Type.String(),
    text: Type.String(),
    scope: ScopeSchema,
    time: Type.Number({ description: 'When it was published, Unix epoch seconds.' }),
    created_at: Type.Number({ description: 'When Waypost stored it, Unix epoch seconds.' }),
    media_ids: Type.Array(Type.String()),
    location: Type.Union([Point, Type.Null()], {
      description: "Where it was written, or null; public posts at the owner's location precision.",
    }),
    source: Type.Union([Type.String(), Type.Null()], {
      description: 'The id of the service it was brought in from (a feed, Mastodon), or null when written here.',
    }),
    source_url: Type.Union([Type.String(), Type.Null()], {
      description: "Where an imported post lives outside (the feed entry's link, the status's URL), or null.",
    }),
    deliveries: Type.Optional(
      Type.Array(PostDeliverySchema, { description: "Only for the owner's token: one entry per target service." }),
    ),
  },
  { $id: 'Post', description: 'A post.' },
);
export type Post = Static<typeof PostSchema>;

export const PostsQuery = collectionQuery({
  format: Type.Optional(
    Type.Union([Type.Literal('json'), Type.Literal('atom'), Type.Literal('jsonfeed')], {
      description:
        '`json` (default), `atom` (RFC 4287, also `Accept: application/atom+xml`) or `jsonfeed` (JSON Feed 1, also ' +
        '`Accept: application/feed+json`), so a feed reader can follow `/posts/public/<username>`.',
    }),
  ),
});
export type PostsParams = Static<typeof PostsQuery>;

export const NewPostBody = Type.Object(
  {
    text: Type.String({
      maxLength: TEXT_MAX * 4,
      description: `1 to ${TEXT_MAX} characters after trimming.`,
    }),
    groups: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
      uniqueItems: true,
      maxItems: 100,
      description: "Distinct ids of the caller's service groups; `[]` stores the post and delivers it nowhere.",
    }),
    scope: Type.Optional(ScopeSchema),
    media_ids: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
        uniqueItems: true,
        maxItems: POST_MEDIA_MAX,
        description: "Ids of the caller's own media to attach.",
      }),
    ),
    location: Type.Optional(Type.Union([Point, Type.Null()])),
  },
  { additionalProperties: false },
);
export type NewPost = Static<typeof NewPostBody>;

export const PostHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '^[\\x21-\\x7e]+$',
      description: 'Makes a retry safe: the same key and body return the first response (IETF httpapi draft).',
    }),
  ),
});

export const DeliverySchema = Type.Object(
  {
    service_id: Type.String(),
    status: DeliveryStatusSchema,
    attempts: Type.Integer(),
    remote_url: Type.Union([Type.String(), Type.Null()], { description: 'Where the target put the post.' }),
    remote_id: Type.Union([Type.String(), Type.Null()], {
      description: "The target's own id for it: a Bluesky record's at:// URI, a Mastodon status id; else null.",
    }),
    last_error: Type.Union([Type.String(), Type.Null()]),
    ...EditFields,
    updated_at: Type.Number({ description: 'Unix epoch seconds.' }),
  },
  { $id: 'Delivery', description: 'The state of sending one post to one service.' },
);

/** POST /posts/id/<id>: what a post's owner may change after the fact. */
export const PostChange = Type.Object(
  {
    scope: Type.Optional(ScopeSchema),
    text: Type.Optional(
      Type.String({
        maxLength: TEXT_MAX * 4,
        description: `1 to ${TEXT_MAX} characters after trimming. Sent on to the services that take edits.`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type PostChangeBody = Static<typeof PostChange>;
