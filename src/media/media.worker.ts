// The image worker: a child process the server forks (image-workers.ts) to do image work one job
// at a time. Whatever a file costs here (time, memory, threads) is this process's, and the
// server kills it when a job runs over its time.
import sharp from 'sharp';
import { fitWithin, inspectImage, thumbnail, withoutMetadata } from './media.image.ts';
import { LimitError, type MediaLimits } from './media.limits.ts';
import type { ImageJob, JobReply, JobRequest } from './image-workers.ts';

// No cache to grow between jobs, and one libvips thread: the number of workers is the bound.
sharp.cache(false);
sharp.concurrency(1);

async function perform(job: ImageJob, limits: MediaLimits): Promise<unknown> {
  switch (job.op) {
    case 'inspect':
      return inspectImage(job.path, job.mimeType, job.timeZone, limits);
    case 'thumbnail':
      return thumbnail(Buffer.from(job.input.buffer, job.input.byteOffset, job.input.byteLength), limits);
    case 'strip':
      return withoutMetadata(job.path, job.mimeType, job.target, limits);
    case 'fit':
      return fitWithin(job.path, job.target, job.maxBytes, job.maxSide, limits);
  }
}

process.on('message', (request: JobRequest) => {
  void perform(request.job, request.limits).then(
    (value) => reply({ id: request.id, ok: true, value }),
    (error: unknown) =>
      reply(
        error instanceof LimitError
          ? { id: request.id, ok: false, code: error.code, detail: error.message }
          : { id: request.id, ok: false, code: 'media_processing_failed', detail: 'The file could not be processed.' },
      ),
  );
});

function reply(message: JobReply) {
  // With a callback, a server that is already gone is no error here: 'disconnect' ends us.
  process.send?.(message, undefined, {}, () => undefined);
}

// The server is gone: so is its worker.
process.on('disconnect', () => process.exit(0));
reply({ ready: true });
