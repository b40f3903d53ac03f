// places.json and visit-corrections.json as untrusted input (docs/imports.md "Restoring an
// export"): a place out of the API's bounds, a correction of no known kind and a split over a
// stretch are refused with the reason, and so is a correction naming a place that was refused;
// the rest is restored. A
// medium of an archive made before places, with a location and no location_source, gets `exif`.
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestUser, type TestApp } from '../../../test/helpers.ts';
import { drain, importWorker, uploadImport } from '../../../test/imports.ts';
import { tokenFor } from '../../../test/tokens.ts';
import { makeZip, type ZipInput } from '../../../test/zip.ts';
import type { Import } from '../../imports/imports.schemas.ts';
import { lazyMedia, restoreDeps } from '../../job-runner.ts';
import type { Medium } from '../../media/media.schemas.ts';
import type { Place } from '../../places/places.schemas.ts';
import { ENTRIES } from '../format.ts';

let t: TestApp;
let media: ReturnType<typeof lazyMedia>;

const auth = (token: string) => ({ authorization: `Bearer ${token}` });
async function get<T>(token: string, url: string): Promise<T> {
  const response = await t.app.inject({ url, headers: auth(token) });
  expect(response.statusCode, `GET ${url}: ${response.body}`).toBe(200);
  return response.json<T>();
}

async function restore(token: string, files: ZipInput[]): Promise<Import> {
  const readme = { name: 'README.txt', data: 'format: waypost-export\nversion: 1\nusername: x\n\n' };
  const response = await uploadImport(t, token, makeZip([readme, ...files]), 'export.zip');
  expect(response.statusCode, response.body).toBe(202);
  await drain(importWorker(t, { restore: restoreDeps(t.config, media) }));
  return get<Import>(token, `/imports/${response.json<{ id: string }>().id}`);
}

beforeAll(async () => {
  t = await buildTestApp();
  media = lazyMedia(t.config);
});
afterAll(async () => {
  media?.close();
  await t?.close();
});

const home = { lat: 52.52, lon: 13.405 };

describe('an archive with bad places and corrections', () => {
  it('restores the rest and reports each refusal', async () => {
    const user = await createTestUser(t.database, { username: 'hand_made' });
    const token = await tokenFor(t, user, [
      'create_post',
      'upload_media',
      'write_locations',
      'get_private_scope',
      'manage_views',
      'update_settings',
      'create_service',
      'manage_groups',
    ]);
    const png = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#ffffff' } })
      .png()
      .toBuffer();
    const hash = createHash('sha256').update(png).digest('hex');
    const place = (id: string, name: string | null, radius: number) => ({
      id,
      name,
      lat: home.lat,
      lon: home.lon,
      radius_m: radius,
      city: 'Berlin',
      country: 'DE',
      created_at: 1_714_953_600,
    });
    const correction = (id: string, kind: string, placeId: string | null) => ({
      id,
      kind,
      start_time: 1_714_953_600,
      end_time: 1_714_957_200,
      place_id: placeId,
      created_at: 1_714_960_000,
    });
    const done = await restore(token, [
      {
        name: ENTRIES.places,
        data: JSON.stringify([
          place('01HZZZZZZZZZZZZZZZZZZZZZQ1', ' Home ', 120),
          place('01HZZZZZZZZZZZZZZZZZZZZZQ2', 'Tiny', 1),
          place('01HZZZZZZZZZZZZZZZZZZZZZQ3', '   ', 100),
        ]),
      },
      {
        name: ENTRIES.visitCorrections,
        data: JSON.stringify([
          correction('01HZZZZZZZZZZZZZZZZZZZZZR1', 'place', '01HZZZZZZZZZZZZZZZZZZZZZQ1'),
          correction('01HZZZZZZZZZZZZZZZZZZZZZR2', 'place', '01HZZZZZZZZZZZZZZZZZZZZZQ2'),
          correction('01HZZZZZZZZZZZZZZZZZZZZZR3', 'not_a_stay', null),
          correction('01HZZZZZZZZZZZZZZZZZZZZZR4', 'teleport', null),
          correction('01HZZZZZZZZZZZZZZZZZZZZZR5', 'split', null),
        ]),
      },
      // As an archive made before places writes it: a location, no location_source.
      {
        name: ENTRIES.media,
        data: `${JSON.stringify({
          id: '01HZZZZZZZZZZZZZZZZZZZZZS1',
          scope: 'private',
          kind: 'image',
          mime_type: 'image/png',
          size: png.length,
          sha256: hash,
          width: 4,
          height: 4,
          duration: null,
          time: 1_714_953_600,
          location: { lat: 48.1, lon: 11.5 },
          caption: '',
          created_at: 1_714_953_600,
          file: `media/${hash}.png`,
        })}\n`,
      },
      { name: `media/${hash}.png`, data: png, stored: true },
    ]);
    expect(done.status).toBe('done');
    expect(done.errors).toEqual([
      { where: 'places.json [1]', message: expect.stringMatching(/^\/radius_m /) as unknown },
      { where: 'places.json [2]', message: '/name must not be blank' },
      {
        where: 'visit-corrections.json [1]',
        message: 'its place 01HZZZZZZZZZZZZZZZZZZZZZQ2 is not among the places restored',
      },
      { where: 'visit-corrections.json [3]', message: expect.stringMatching(/^\/kind /) as unknown },
      { where: 'visit-corrections.json [4]', message: '/end_time of a split is its start_time' },
    ]);
    expect(done.items?.places).toEqual({ seen: 3, stored: 1, duplicates: 0, skipped: 2 });
    expect(done.items?.visit_corrections).toEqual({ seen: 5, stored: 2, duplicates: 0, skipped: 3 });
    const places = await get<Place[]>(token, '/places');
    expect(places.map((p) => [p.id, p.name, p.radius_m, p.city, p.country])).toEqual([
      ['01HZZZZZZZZZZZZZZZZZZZZZQ1', 'Home', 120, 'Berlin', 'DE'],
    ]);
    const stored = await t.database.db
      .selectFrom('visit_corrections')
      .select(['id', 'kind', 'place_id'])
      .where('user_id', '=', user.id)
      .orderBy('id')
      .execute();
    expect(stored).toEqual([
      { id: '01HZZZZZZZZZZZZZZZZZZZZZR1', kind: 'place', place_id: '01HZZZZZZZZZZZZZZZZZZZZZQ1' },
      { id: '01HZZZZZZZZZZZZZZZZZZZZZR3', kind: 'not_a_stay', place_id: null },
    ]);
    const medium = await get<Medium>(token, '/media/id/01HZZZZZZZZZZZZZZZZZZZZZS1');
    expect([medium.location, medium.location_source]).toEqual([{ lat: 48.1, lon: 11.5 }, 'exif']);
  });
});
