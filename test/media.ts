// Uploads for media tests: a multipart body as a browser's FormData sends it, posted through
// inject with a bearer token.
import sharp from 'sharp';
import type { TestApp } from './helpers.ts';

/** A small JPEG taken at 52°31'12"N 13°24'18"E, as a phone writes it (EXIF make, model and GPS). */
export function gpsPhoto(colour = '#3366cc'): Promise<Buffer> {
  return sharp({ create: { width: 64, height: 48, channels: 3, background: colour } })
    .jpeg()
    .withExif({
      IFD0: { Make: 'Waypost', Model: 'Test camera' },
      IFD3: {
        GPSLatitudeRef: 'N',
        GPSLatitude: '52/1 31/1 12/1',
        GPSLongitudeRef: 'E',
        GPSLongitude: '13/1 24/1 18/1',
      },
    })
    .toBuffer();
}

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
