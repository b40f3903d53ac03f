import { Type } from 'typebox';
import { SERVICE_TYPES } from './connectors/index.ts';

export const REDACTED = '[redacted]';

export const ServiceSchema = Type.Object(
  {
    id: Type.String(),
    type: Type.Union(SERVICE_TYPES.map((type) => Type.Literal(type))),
    name: Type.String(),
    enabled: Type.Boolean({ description: 'Disabled services receive no new deliveries.' }),
    capabilities: Type.Array(Type.Union([Type.Literal('publish'), Type.Literal('import')])),
    config: Type.Record(Type.String(), Type.String(), {
      description: `The configuration given at creation, every secret shown as "${REDACTED}".`,
    }),
    status: Type.Union([Type.Literal('ok'), Type.Literal('error')], {
      description: '`error` when the last delivery to it failed; `last_error` says why.',
    }),
    last_error: Type.Union([Type.String(), Type.Null()]),
    created_at: Type.Number({ description: 'Unix epoch seconds.' }),
  },
  { $id: 'Service', description: 'A connection to something outside that posts are published to.' },
);

export const ServiceGroupSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    service_ids: Type.Array(Type.String(), { description: 'Members, in the order they were added.' }),
    created_at: Type.Number({ description: 'Unix epoch seconds.' }),
  },
  { $id: 'ServiceGroup', description: 'A named set of services a post can be sent to.' },
);

export const DeliverySchema = Type.Object(
  {
    service_id: Type.String(),
    status: Type.Union(['pending', 'delivered', 'failed', 'cancelled'].map((s) => Type.Literal(s))),
    attempts: Type.Integer(),
    remote_url: Type.Union([Type.String(), Type.Null()], { description: 'Where the target put the post.' }),
    last_error: Type.Union([Type.String(), Type.Null()]),
    updated_at: Type.Number({ description: 'Unix epoch seconds.' }),
  },
  { $id: 'Delivery', description: 'The state of sending one post to one service.' },
);

export const NewServiceBody = Type.Object(
  {
    type: Type.Union(SERVICE_TYPES.map((type) => Type.Literal(type))),
    name: Type.String({ minLength: 1, maxLength: 100 }),
    enabled: Type.Optional(Type.Boolean({ default: true })),
    config: Type.Record(Type.String(), Type.Unknown(), {
      description:
        'Per type. webhook: {url, secret: "whsec_<base64>"}; mastodon: {instance_url, access_token}; ' +
        'micropub: {endpoint, access_token}. Unknown fields are rejected.',
    }),
  },
  { additionalProperties: false },
);

export const NewGroupBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    service_ids: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 100, uniqueItems: true })),
  },
  { additionalProperties: false },
);

export const IdParams = Type.Object({ id: Type.String({ maxLength: 100 }) });
export const MemberParams = Type.Object({
  id: Type.String({ maxLength: 100 }),
  service_id: Type.String({ maxLength: 100 }),
});
