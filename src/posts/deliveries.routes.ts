// Control over deliveries (docs/api.md "Deliveries"): try a failed one again.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../db/database.ts';
import { problems } from '../http/schemas.ts';
import { nowMs } from '../lib/time.ts';
import type { PostDeliveries } from './posts.logic.ts';
import { DeliverySchema } from './posts.schemas.ts';

export interface DeliveriesRoutesOptions {
  db: Db;
  /** Deliveries of posts (src/services/deliveries.logic.ts), passed in by src/app.ts. */
  deliveries: PostDeliveries;
  /** Called after a job was queued (wakes an in-process worker). */
  onJobsQueued?: (() => void) | undefined;
}

const RetryParams = Type.Object({
  id: Type.String({ maxLength: 100, description: 'The post.' }),
  service_id: Type.String({ maxLength: 100, description: 'The service it was sent to.' }),
});

export async function deliveriesRoutes(fastify: FastifyInstance, options: DeliveriesRoutesOptions) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = options;
  app.addSchema(DeliverySchema);

  app.post(
    '/posts/id/:id/deliveries/:service_id/retry',
    {
      config: { permission: 'create_post' },
      schema: {
        summary: 'Try a failed delivery again',
        description:
          'Puts a `failed` or `cancelled` delivery of your post back to `pending` and queues it: 202 with the ' +
          'delivery. It keeps its id, so the target gets the same `webhook-id` / `Idempotency-Key` as the first ' +
          'time; `attempts` goes on counting. 409 while it is `pending` or `delivered`; 404 for a post that is ' +
          "not yours or does not exist, or a service with no delivery of it (another person's answer like a " +
          'missing one).',
        tags: ['posts'],
        params: RetryParams,
        response: {
          202: { ...Type.Ref('Delivery'), description: 'Queued again.' },
          ...problems(400, 401, 404, 409),
        },
      },
    },
    async (request, reply) => {
      const { id, service_id: serviceId } = request.params;
      const delivery = await options.deliveries.retry(db, request.auth!.userId, id, serviceId, nowMs());
      options.onJobsQueued?.();
      return reply.code(202).send(delivery);
    },
  );
}
