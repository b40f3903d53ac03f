import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import type { Cursors } from '../core/cursors.ts';
import { problems } from '../http/schemas.ts';
import { registerItemReads } from '../items/reads.routes.ts';
import { registerItemWrites } from '../items/writes.routes.ts';
import { changeOwnItem, type ItemChange } from '../items/writes.logic.ts';
import type { PageCache } from '../items/public-pages.ts';
import { IdParams, type CollectionParams } from '../items/items.schemas.ts';
import { findMediaTools, missingToolsWarning } from './media.ffmpeg.ts';
import { sendStoredFile } from './media.files.ts';
import type { MediaJobs } from './image-workers.ts';
import { createMedium, getMedium, listMedia, mediaDeps, mediumFile } from './media.logic.ts';
import { FileHeaders, MediaQuery, MediumChange, MediumSchema, type Medium } from './media.schemas.ts';
import { deleteMedium } from './media.removal.ts';
import { mediaStorage } from './media.storage.ts';
import { receiveUpload } from './media.upload.ts';

export async function mediaRoutes(
  fastify: FastifyInstance,
  {
    db,
    config,
    pages,
    jobs,
    cursors,
  }: { db: Db; config: Config; pages?: PageCache | undefined; jobs: MediaJobs; cursors: Cursors },
) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const storage = mediaStorage(config);
  const { baseUrl, uploadLimit } = config;
  const tools = await findMediaTools(config);
  const warning = missingToolsWarning(config, tools);
  if (warning) fastify.log.warn(warning);
  const media = mediaDeps(storage, tools, jobs);
  app.addSchema(MediumSchema);
  // One file per request, streamed to disk; the limits bound what a request can make us hold.
  await app.register(multipart, {
    limits: { fileSize: uploadLimit, files: 1, fields: 4, fieldSize: 8 * 1024, parts: 6, headerPairs: 100 },
  });

  registerItemReads<CollectionParams, Medium>(
    app,
    { db, baseUrl, pages, cursors },
    {
      table: 'media',
      tag: 'media',
      objectRef: 'Medium',
      query: MediaQuery,
      list: (ctx) => listMedia(db, baseUrl, ctx),
      byId: (id, auth) => getMedium(db, baseUrl, id, auth),
    },
  );

  for (const which of ['file', 'thumbnail'] as const) {
    app.get(
      `/media/id/:id/${which}`,
      {
        config: { auth: 'optional' },
        schema: {
          summary: which === 'file' ? 'The file of a medium' : 'The WebP thumbnail of an image or video',
          description:
            'The same access rules as `GET /media/id/<id>`. Strong `ETag` (the SHA-256 of the bytes sent), ' +
            '`If-None-Match` (304), single byte ranges (206, 416), `If-Range`.' +
            (which === 'file'
              ? " A medium is served to everyone but its owner without its metadata (its ETag is the public copy's " +
                "hash, the object's `sha256` for them); its owner gets the original. An image (EXIF, XMP: camera, " +
                'time, exact GPS) is re-encoded in its own ' +
                'format; video and audio (creation time, place, device, chapters, cover art, data tracks) are copied ' +
                'into their own format without them, pictures and sound untouched. The copy is made once, on the ' +
                'first such request (requests that race share it); when it cannot be made (the file is over a media ' +
                'limit, or its job runs out of time) that is remembered and every such request is a 404, never the ' +
                'original. 503 `media_tool_unavailable` when the server lacks ffmpeg to make it, 503 `media_busy` ' +
                '(with `Retry-After`) when too many images wait for the image workers.'
              : ''),
          tags: ['media'],
          params: IdParams,
          headers: FileHeaders,
          response: {
            200: { description: 'The bytes, with their sniffed content type.', content: { '*/*': { schema: {} } } },
            206: { description: 'The requested range.', content: { '*/*': { schema: {} } } },
            304: { description: 'Not modified.', type: 'null' },
            ...problems(400, 401, 404, 416, 503),
          },
        },
      },
      async (request, reply) =>
        sendStoredFile(request, reply, storage, await mediumFile(db, media, request.params.id, request.auth, which)),
    );
  }

  app.post(
    '/media',
    {
      config: { permission: 'upload_media' },
      schema: {
        summary: 'Upload a photo, video or audio file',
        description:
          'multipart/form-data with one part `file` and optional fields `scope` (`public` or `private`; default ' +
          "from the owner's settings, private unless changed) and `caption`. The type is sniffed from the bytes; " +
          `anything but image, video or audio is 415. Files over the upload limit (WAYPOST_UPLOAD_LIMIT) are 413. ` +
          "EXIF time (its own offset, else the owner's time zone) and GPS are read from images; duration, size as " +
          'displayed, creation time and place (ISO 6709) from video and audio, by ffprobe when the server has it. A ' +
          'WebP thumbnail without metadata is made for images and video. 201 with `Location` and the medium.\n\n' +
          'Images are processed in separate worker processes, within limits; a file over one is refused with 422 ' +
          'and nothing is stored (no medium, no file). `media_too_many_pixels`: more pixels than ' +
          'WAYPOST_MEDIA_MAX_PIXELS, every frame counted. `media_metadata_too_large`: a JPEG, PNG or WebP with ' +
          'more metadata (EXIF, XMP, ICC, comments, text) than WAYPOST_MEDIA_MAX_METADATA_BYTES. ' +
          '`media_metadata_invalid`: EXIF directories that point back at each other. `media_processing_timeout`: ' +
          'the work took longer than WAYPOST_MEDIA_TIMEOUT_MS (the worker is killed). `media_processing_failed`: ' +
          'the worker stopped on the file. 503 `media_busy` (with `Retry-After`) when too many images wait.',
        tags: ['media'],
        consumes: ['multipart/form-data'],
        response: {
          201: { ...Type.Ref('Medium'), description: 'Stored.' },
          ...problems(400, 401, 413, 415, 422, 503),
        },
      },
    },
    async (request, reply) => {
      const upload = await receiveUpload(request, storage, uploadLimit);
      const medium = await createMedium(db, media, baseUrl, request.auth!.userId, upload);
      return reply.code(201).header('location', `/media/id/${medium.id}`).send(medium);
    },
  );

  registerItemWrites<ItemChange>(app, {
    table: 'media',
    one: 'medium',
    permission: 'upload_media',
    alsoDeleted:
      ' Posts that name it keep their text and drop it from `media_ids`. The file goes when no other medium (of any account) has the same content.',
    delete: (id, auth) => deleteMedium(db, storage, id, auth),
    change: {
      summary: 'Change one of your media',
      takes: '`{scope, caption}` (partial)',
      body: MediumChange,
      objectRef: 'Medium',
      apply: async (id, change, auth) => {
        await changeOwnItem(db, 'media', id, change, auth);
        return getMedium(db, baseUrl, id, auth);
      },
    },
  });
}
