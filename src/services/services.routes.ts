// /services and /services/groups (docs/api.md "Services and groups").
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AddressCategory } from '../config.ts';
import type { Db } from '../db/database.ts';
import { callerId } from '../http/caller.ts';
import { createOutbound } from '../lib/ssrf.ts';
import { problems } from '../http/schemas.ts';
import { strictBody } from '../http/strict-body.ts';
import { changeService } from './change.logic.ts';
import { startConnection } from './connect.logic.ts';
import { groupsRoutes } from './groups.routes.ts';
import {
  createService,
  deleteService,
  getService,
  listServices,
  renewSecrets,
  rotateIngestToken,
  testService,
} from './services.logic.ts';
import {
  IdParams,
  IngestSchema,
  NewServiceBody,
  ServiceChangeBody,
  ServiceConnectBody,
  ServiceConnectStartSchema,
  ServiceGroupSchema,
  ServiceSchema,
  ServiceTestSchema,
} from './services.schemas.ts';
import { DeliverySchema } from '../posts/posts.schemas.ts';
import type { SecretKey } from './secrets.ts';

export interface ServicesRoutesOptions {
  db: Db;
  secretsKey: SecretKey;
  baseUrl: string;
  /** Which address kinds `POST /services/<id>/test` may reach besides public ones. */
  outboundAllow: ReadonlySet<AddressCategory>;
}

const tags = ['services'];

export async function servicesRoutes(fastify: FastifyInstance, options: ServicesRoutesOptions) {
  const { db, secretsKey, baseUrl } = options;
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  // A test waits for the target in the request: a shorter limit than a delivery's.
  const outbound = createOutbound({ allow: options.outboundAllow, timeoutMs: 10_000 });
  app.addHook('onClose', () => outbound.close());
  const connectDeps = { db, key: secretsKey, baseUrl, outbound, now: Date.now };
  app.addSchema(ServiceSchema);
  app.addSchema(ServiceGroupSchema);
  app.addSchema(DeliverySchema);
  app.addSchema(ServiceTestSchema);
  app.addSchema(ServiceConnectStartSchema);

  app.get(
    '/services',
    {
      config: { permission: 'get_services' },
      schema: {
        summary: 'Your services',
        description: 'Every service you connected, oldest first.',
        tags,
        response: { 200: Type.Array(Type.Ref('Service')), ...problems(401) },
      },
    },
    async (request) => listServices(db, baseUrl, callerId(request), secretsKey),
  );

  app.get(
    '/services/:id',
    {
      config: { permission: 'get_services' },
      schema: {
        summary: 'One service, in an array',
        description:
          'An array holding the one service, as the specification says ("array of service objects"). ' +
          "Another person's service is 404, like a missing one.",
        tags,
        params: IdParams,
        response: { 200: Type.Array(Type.Ref('Service')), ...problems(400, 401, 404) },
      },
    },
    async (request) => [await getService(db, baseUrl, callerId(request), request.params.id, secretsKey)],
  );

  app.post(
    '/services',
    {
      config: { permission: 'create_service' },
      schema: {
        summary: 'Connect a service',
        description:
          'Validates `config` for the type. Secrets (webhook `secret`, `access_token`) are stored encrypted ' +
          'and shown as "[redacted]" ever after; a webhook given no `secret` gets one made, shown once in ' +
          '`generated_secrets`. 201 with `Location: /services/<id>`. A tracker (owntracks, ' +
          'overland, gpslogger) comes with `ingest: {url, token}`: the token is in this answer only (later reads ' +
          'show `ingest: {url}`); docs/trackers.md says how to set up each app.',
        tags,
        body: NewServiceBody,
        response: { 201: Type.Ref('Service'), ...problems(400, 401) },
      },
      validatorCompiler: strictBody,
    },
    async (request, reply) => {
      const service = await createService(db, secretsKey, baseUrl, callerId(request), request.body);
      return reply.code(201).header('location', `/services/${service.id}`).send(service);
    },
  );

  app.post(
    '/services/connect',
    {
      config: { permission: 'create_service' },
      schema: {
        summary: 'Connect a service by signing in on its server',
        description:
          'For a type whose accounts sign in on their own server (mastodon): Waypost registers itself there as an ' +
          'app (`POST /api/v1/apps`, redirect back to `/app/services/connected`), or uses the registration kept ' +
          "from the person's earlier connection there while the server still knows it, and answers the server's " +
          'authorization page (`authorize_url`, with `state` and, where the server takes it, a PKCE challenge). ' +
          'Send the person there; once they allow Waypost, the server sends them back to the web app, which ' +
          'exchanges the code for the token and makes the service (signed in as the person who started, within ' +
          '15 minutes, once). 400 for settings the type refuses or a type that is entered instead; 422 ' +
          '`service_connect_failed` when the server cannot be reached, is refused by the outbound rules, or ' +
          'does not register Waypost, `errors` naming the field (docs/api.md "Connecting a service by signing in").',
        tags,
        body: ServiceConnectBody,
        response: { 200: Type.Ref('ServiceConnectStart'), ...problems(400, 401, 404, 422) },
      },
      validatorCompiler: strictBody,
    },
    async (request) => startConnection({ ...connectDeps }, callerId(request), request.body),
  );

  app.post(
    '/services/:id/secret',
    {
      config: { permission: 'create_service' },
      schema: {
        summary: 'Make a new signing secret',
        description:
          "For a service whose secret Waypost makes (a webhook's signing `secret`): a new one, in this answer's " +
          '`generated_secrets` only; the old one stops working at once. 400 for a type whose secrets are entered.',
        tags,
        params: IdParams,
        response: { 200: Type.Ref('Service'), ...problems(400, 401, 404) },
      },
    },
    async (request) => renewSecrets(db, secretsKey, baseUrl, callerId(request), request.params.id),
  );

  app.post(
    '/services/:id',
    {
      config: { permission: 'create_service' },
      schema: {
        summary: 'Change a service',
        description:
          'Takes `{name, enabled, config}`, each optional (what is left out stays); needs `create_service`, the ' +
          'permission that sets a service up. `config` is merged into the stored one and the whole checked by ' +
          "the type's schema, as at creation (400 naming each field). Secrets are write-only: one given replaces " +
          'the stored one, one left out is kept. Enabling a service that lacks secrets (restored from an ' +
          'export) is 409 `service_needs_secrets`, `errors` naming each; give them in the same request. A ' +
          "tracker keeps its ingest token. A change to a polling service's settings, or enabling it, polls it " +
          "at once; a new source starts afresh. Another person's service is 404. Answers the service, as " +
          '`POST /services` does, secrets redacted.',
        tags,
        params: IdParams,
        body: ServiceChangeBody,
        response: { 200: Type.Ref('Service'), ...problems(400, 401, 404, 409) },
      },
      validatorCompiler: strictBody,
    },
    async (request) => changeService(db, secretsKey, baseUrl, callerId(request), request.params.id, request.body),
  );

  app.delete(
    '/services/:id',
    {
      config: { permission: 'delete_service' },
      schema: {
        summary: 'Disconnect a service',
        description: 'Removes it from its groups and cancels its pending deliveries; items it imported stay.',
        tags,
        params: IdParams,
        response: { 204: Type.Null(), ...problems(400, 401, 404) },
      },
    },
    async (request, reply) => {
      await deleteService(db, callerId(request), request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/services/:id/ingest-token',
    {
      config: { permission: 'create_service' },
      schema: {
        summary: "Rotate a tracker's ingest token",
        description:
          'A new token for the ingest URL, shown in this answer only; the old one stops working at once. ' +
          '400 for a service that is not a tracker.',
        tags,
        params: IdParams,
        response: {
          200: Type.Object({ ingest: Type.Required(IngestSchema) }),
          ...problems(400, 401, 404),
        },
      },
    },
    async (request) => ({ ingest: await rotateIngestToken(db, baseUrl, callerId(request), request.params.id) }),
  );

  app.post(
    '/services/:id/test',
    {
      config: { permission: 'create_service' },
      schema: {
        summary: 'Test a service',
        description:
          'A webhook gets a test event (`type: "test"`), signed like a delivery; a mastodon service has its token ' +
          'checked (verify_credentials), a micropub service its token (`q=config`), a bluesky service its handle and ' +
          "app password (createSession). The answer reports the target's status and a short excerpt of its answer, " +
          'or why it could not be reached: 200 whatever the target said. 400 for a type with nothing to test ' +
          '(trackers).',
        tags,
        params: IdParams,
        response: { 200: Type.Ref('ServiceTest'), ...problems(400, 401, 404) },
      },
    },
    async (request) => testService({ db, key: secretsKey, outbound }, callerId(request), request.params.id),
  );

  await app.register(groupsRoutes, { db });
}
