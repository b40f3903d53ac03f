// A stand-in image worker for the tests of src/media/image-workers.ts: a job for the path `spin`
// keeps its CPU busy forever, `crash` ends the process, anything else answers with the pid.
import type { JobReply, JobRequest } from '../src/media/image-workers.ts';

process.on('message', (request: JobRequest) => {
  const path = 'path' in request.job ? request.job.path : '';
  if (path === 'crash') process.exit(3);
  if (path === 'spin') for (;;);
  const reply: JobReply = { id: request.id, ok: true, value: process.pid };
  process.send?.(reply);
});
process.on('disconnect', () => process.exit(0));
process.send?.({ ready: true } satisfies JobReply);
