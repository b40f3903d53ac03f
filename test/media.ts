// Uploads for media tests: a multipart body as a browser's FormData sends it, posted through
// inject with a bearer token.
import type { TestApp } from './helpers.ts';

/** A multipart body as a browser's FormData would send it (encoded by undici, not by us). */
export async function multipart(file: Buffer, filename: string, type: string, fields: Record<string, string> = {}) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('file', new Blob([new Uint8Array(file)], { type }), filename);
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return { payload: Buffer.from(await request.arrayBuffer()), contentType: request.headers.get('content-type')! };
}

/** POST /media with one file and optional fields. */
export async function uploadMedium(
  app: TestApp,
  token: string,
  file: Buffer,
  filename: string,
  type: string,
  fields: Record<string, string> = {},
) {
  const body = await multipart(file, filename, type, fields);
  return app.app.inject({
    method: 'POST',
    url: '/media',
    headers: { authorization: `Bearer ${token}`, 'content-type': body.contentType },
    payload: body.payload,
  });
}
