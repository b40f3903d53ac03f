// /imports: location history files brought in once, read by the job queue (docs/imports.md).
// Every route needs `write_locations`: an import writes locations, and reading the imports
// shows what was written, which is the writer's business.
import multipart from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import { callerId } from '../http/caller.ts';
import { problems } from '../http/schemas.ts';
import { nowMs } from '../lib/time.ts';
import { importFiles } from './imports.files.ts';
import {
  createImport,
  deleteImport,
  getImport,
  IMPORT_FORMATS,
  listImports,
  RESTORE_PERMISSIONS,
} from './imports.logic.ts';
import { ImportParams, ImportSchema } from './imports.schemas.ts';
import { receiveImportUpload } from './imports.upload.ts';
import { EXPORT_FORMAT } from '../archive/format.ts';

export interface ImportsRoutesOptions {
  db: Db;
  config: Config;
  /** Wakes an in-process worker when an import was queued. */
  onJobsQueued?: (() => void) | undefined;
}

const tags = ['imports'];

export async function importsRoutes(fastify: FastifyInstance, { db, config, onJobsQueued }: ImportsRoutesOptions) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.addSchema(ImportSchema);
  const files = importFiles(config);
  const dir = files.dir;
  const limit = config.importLimit;
  await app.register(multipart, {
    limits: { fileSize: limit, files: 1, fields: 4, fieldSize: 1024, parts: 6, headerPairs: 100 },
  });

  app.post(
    '/imports',
    {
      config: { permission: 'write_locations' },
      schema: {
        summary: 'Import a location history file, or restore a Waypost export',
        description:
          'multipart/form-data with one part `file` and optional fields `format` ' +
          `(${IMPORT_FORMATS.map((f) => `\`${f}\``).join(', ')}; detected from the content when absent) and \`scope\` ` +
          "(`public` or `private`; default from the owner's settings). The file is stored, then read by the job " +
          'queue: 202 with `Location: /imports/<id>` and the import, which GET shows as it goes. A file in none of ' +
          `the formats is 400, saying what it looks like; one over the import limit (WAYPOST_IMPORT_LIMIT) is 413. ` +
          'A Waypost export (`GET /export`; detected by its README.txt, or `format` `' +
          EXPORT_FORMAT +
          '`) is restored ' +
          "into the caller's account: settings, services (disabled, without secrets), groups, views, media, posts " +
          'and locations, counted in `items` (docs/imports.md "Restoring an export"); it also needs ' +
          `${RESTORE_PERMISSIONS.map((p) => `\`${p}\``).join(', ')} (401 \`insufficient_scope\` naming the first missing).`,
        tags,
        consumes: ['multipart/form-data'],
        response: { 202: { ...Type.Ref('Import'), description: 'Queued.' }, ...problems(400, 401, 413, 415) },
      },
    },
    async (request, reply) => {
      const upload = await receiveImportUpload(request, dir, limit);
      const created = await createImport(
        db,
        { userId: callerId(request), path: upload.path, owned: true, filename: upload.filename, ...upload.fields },
        { files, now: nowMs(), permissions: request.auth?.permissions },
      );
      onJobsQueued?.();
      return reply.code(202).header('location', `/imports/${created.id}`).send(created);
    },
  );

  app.get(
    '/imports',
    {
      config: { permission: 'write_locations' },
      schema: {
        summary: 'Your imports',
        description: 'Every import of yours, newest first.',
        tags,
        response: { 200: Type.Array(Type.Ref('Import')), ...problems(401) },
      },
    },
    async (request) => listImports(db, callerId(request)),
  );

  app.get(
    '/imports/:id',
    {
      config: { permission: 'write_locations' },
      schema: {
        summary: 'One import',
        description: "Its state and counters as the job updates them. Another person's import is 404.",
        tags,
        params: ImportParams,
        response: { 200: Type.Ref('Import'), ...problems(400, 401, 404) },
      },
    },
    async (request) => getImport(db, callerId(request), request.params.id),
  );

  app.delete(
    '/imports/:id',
    {
      config: { permission: 'write_locations' },
      schema: {
        summary: 'Cancel or undo an import',
        description:
          'Cancels a queued or running import, deletes every point it stored (a point that was already stored ' +
          'before, by anything else, stays) and the uploaded file, then the import itself. 204.',
        tags,
        params: ImportParams,
        response: { 204: { description: 'Deleted.', type: 'null' }, ...problems(400, 401, 404) },
      },
    },
    async (request, reply) => {
      await deleteImport(db, files, callerId(request), request.params.id, nowMs());
      return reply.code(204).send(null);
    },
  );
}
