// Revoking an app from the apps page (src/web/apps.page.ts).
import formbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import { seeOther } from '../account/replies.ts';
import { refuseForm } from '../account/forms.ts';
import { sessionUserId } from '../account/sessions.http.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import { revokeAuthorizedApp } from '../oauth/grants.logic.ts';

type Form = { Body: { csrf?: string } | undefined };

export async function accountRoutes(app: FastifyInstance, { db, config }: { db: Db; config: Config }) {
  await app.register(formbody);
  app.post<Form & { Params: { grantId: string } }>(
    '/account/apps/:grantId/revoke',
    { schema: { hide: true } },
    async (request, reply) => {
      const refused = refuseForm(request, reply, config, request.body?.csrf, '/account');
      if (refused) return refused;
      const userId = await sessionUserId(db, config.baseUrl, request);
      if (!userId) return seeOther(reply, '/account');
      await revokeAuthorizedApp(db, userId, request.params.grantId);
      return seeOther(reply, '/account');
    },
  );
}
