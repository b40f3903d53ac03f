import { Type, type Static } from 'typebox';
import { literalUnion } from '../lib/literals.ts';
import { SERVICE_TYPES } from './connectors/types.ts';

export const REDACTED = '[redacted]';

export const IngestSchema = Type.Object(
  {
    url: Type.String({ description: 'Where the app sends its points (docs/trackers.md).' }),
    token: Type.Optional(
      Type.String({
        description:
          'The ingest token (256 random bits): only in the answer that made it (`POST /services`, ' +
          '`POST /services/<id>/ingest-token`); stored as a SHA-256 hash, never shown again.',
      }),
    ),
  },
  { description: 'Trackers only (owntracks, overland, gpslogger).' },
);

export const ServiceSchema = Type.Object(
  {
    id: Type.String(),
    type: literalUnion(SERVICE_TYPES),
    name: Type.String(),
    enabled: Type.Boolean({ description: 'Disabled services receive no new deliveries.' }),
    capabilities: Type.Array(Type.Union([Type.Literal('publish'), Type.Literal('import')])),
    config: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()]), {
      description: `The configuration given at creation, every secret shown as "${REDACTED}".`,
    }),
    status: Type.Union([Type.Literal('ok'), Type.Literal('error')], {
      description: '`error` when the last delivery to it failed; `last_error` says why.',
    }),
    last_error: Type.Union([Type.String(), Type.Null()]),
    created_at: Type.Number({ description: 'Unix epoch seconds.' }),
    ingest: Type.Optional(IngestSchema),
    generated_secrets: Type.Optional(
      Type.Record(Type.String(), Type.String(), {
        description:
          "Secrets Waypost made for the service (a webhook's signing `secret` when none was given), by field: only " +
          'in the answer that made them (`POST /services`, `POST /services/<id>/secret`); stored encrypted, never ' +
          'shown again.',
      }),
    ),
    activity: Type.Optional(
      Type.Object(
        {
          last_point_at: Type.Union([Type.Number(), Type.Null()], {
            description:
              'When the last request that stored points arrived (Unix epoch seconds); null before the first.',
          }),
          points_today: Type.Integer({
            minimum: 0,
            description: "Points stored today, the day in the owner's time zone (Settings); 0 on a day without any.",
          }),
        },
        {
          description:
            'Trackers only, in `GET /services` and `GET /services/<id>`: what has arrived (docs/trackers.md "The tracker page").',
        },
      ),
    ),
    missing_secrets: Type.Optional(
      Type.Array(Type.String(), {
        description:
          'Secret fields the service needs and does not have: a service restored from an export comes back ' +
          'disabled without its secrets. Absent when none is missing. `POST /services/<id>` takes them.',
      }),
    ),
  },
  {
    $id: 'Service',
    description: 'A connection to something outside: posts are published to it, or it brings points in (trackers).',
  },
);
export type Service = Static<typeof ServiceSchema>;

export const ServiceGroupSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    service_ids: Type.Array(Type.String(), { description: 'Members, in the order they were added.' }),
    created_at: Type.Number({ description: 'Unix epoch seconds.' }),
  },
  { $id: 'ServiceGroup', description: 'A named set of services a post can be sent to.' },
);
export type ServiceGroup = Static<typeof ServiceGroupSchema>;

export const ServiceTestSchema = Type.Object(
  {
    ok: Type.Boolean({ description: 'The target accepted the test: a 2xx answer, or valid credentials.' }),
    status: Type.Union([Type.Integer(), Type.Null()], {
      description: "The target's HTTP status; null when it could not be reached.",
    }),
    detail: Type.String({
      description: "At most 200 characters: the start of the target's answer, or why it could not be reached.",
    }),
  },
  { $id: 'ServiceTest', description: 'What a service answered to `POST /services/<id>/test`.' },
);
export type ServiceTest = Static<typeof ServiceTestSchema>;

export const NewServiceBody = Type.Object(
  {
    type: literalUnion(SERVICE_TYPES),
    name: Type.String({ minLength: 1, maxLength: 100 }),
    enabled: Type.Optional(Type.Boolean({ default: true })),
    config: Type.Record(Type.String(), Type.Unknown(), {
      description:
        'Per type. webhook: {url} and optionally `secret` ("whsec_<base64>"; left out, Waypost makes one and ' +
        'the answer shows it once in `generated_secrets`); mastodon: {instance_url, access_token} and, to ' +
        'bring its statuses in, `import: true` (optional `interval_minutes`, `scope`); micropub: {endpoint, ' +
        'access_token}; bluesky: {handle, app_password, service_url (optional, default https://bsky.social)}; feed: {url} (optional `interval_minutes` 5..1440, default 15; `backlog` 0..500, default ' +
        '50; `scope`); owntracks, overland, gpslogger: {} (the answer carries the ingest URL and token). Unknown ' +
        'fields are rejected.',
    }),
  },
  { additionalProperties: false },
);
export type NewService = Static<typeof NewServiceBody>;

export const ServiceConnectBody = Type.Object(
  {
    type: literalUnion(SERVICE_TYPES, {
      description: 'A type that is connected by signing in on its server: `mastodon`.',
    }),
    name: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'The name of the service; by default the account, as `@alice@mastodon.social`.',
      }),
    ),
    config: Type.Record(Type.String(), Type.Unknown(), {
      description:
        'The settings without the secrets. mastodon: `instance_url` (the server: `mastodon.social`, ' +
        '`https://mastodon.social` or an address `@alice@mastodon.social` all name it) and, to bring statuses in, ' +
        '`import`, `interval_minutes`, `scope`. The access token comes from the server.',
    }),
    service_id: Type.Optional(
      Type.String({
        maxLength: 100,
        description: 'Sign in again for this service of yours: the new token replaces its old one.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ServiceConnect = Static<typeof ServiceConnectBody>;

export const ServiceConnectStartSchema = Type.Object(
  {
    authorize_url: Type.String({
      description: "The server's authorization page: send the person's browser there.",
    }),
    expires_at: Type.Number({ description: 'Until when, Unix epoch seconds, the sign-in can be finished.' }),
  },
  { $id: 'ServiceConnectStart', description: 'Where to send the person to connect a service by signing in.' },
);
export type ServiceConnectStart = Static<typeof ServiceConnectStartSchema>;

export const ServiceChangeBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    enabled: Type.Optional(Type.Boolean()),
    config: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description:
          "The fields to change, checked with the rest by the type's schema as at creation. A field left out " +
          `keeps its value; \`null\` removes an optional setting (back to its default). A secret given replaces ` +
          `the stored one; one left out, or sent back as "${REDACTED}", is kept.`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type ServiceChange = Static<typeof ServiceChangeBody>;

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
