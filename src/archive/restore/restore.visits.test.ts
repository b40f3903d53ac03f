// Places, visit corrections and `location_source` through an export and a restore (docs/imports.md
// "Restoring an export"): a person's day with a named place, an unnamed one, a `place` and a
// `not_a_stay` correction and a photo placed by the history, exported and restored into a fresh
// account of the same server (so every place and correction gets a derived id, and the
// corrections must follow their places); the visits and trips the import job detects afterwards
// are those of the source. Then the same archive over points the person had already.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batches, offset, type Fix, commute } from '../../../test/days.ts';
import { buildTestApp, createTestUser, type TestApp } from '../../../test/helpers.ts';
import { drain, importWorker, uploadImport } from '../../../test/imports.ts';
import { uploadMedium } from '../../../test/media.ts';
import { tokenFor } from '../../../test/tokens.ts';
import { makeZip, readZip } from '../../../test/zip.ts';
import type { Permission } from '../../core/permissions.ts';
import type { Import } from '../../imports/imports.schemas.ts';
import { lazyMedia, restoreDeps } from '../../job-runner.ts';
import type { Medium } from '../../media/media.schemas.ts';
import type { Place } from '../../places/places.schemas.ts';
import type { TripJson, VisitJson } from '../../visits/visits.schemas.ts';
import { ENTRIES, type PlaceRecord, type VisitCorrectionRecord } from '../format.ts';
import { derivedId } from './restore.ids.ts';

const RESTORE: Permission[] = [
  'create_post',
  'upload_media',
  'write_locations',
  'get_private_scope',
  'manage_views',
  'update_settings',
  'create_service',
  'manage_groups',
];

const DAY = Date.parse('2024-05-06T00:00:00Z');
const H = 3_600_000;
const home = { lat: 52.52, lon: 13.405 };
const office = offset(home, 1500, 1500);
const friends = offset(home, -4000, 0);

/** Home until 08:00, a 30-minute walk, the office until 17:00, the walk back, home. */
function day(): Fix[] {
  return commute(DAY, { home, office }, 21);
}

let t: TestApp;
let media: ReturnType<typeof lazyMedia>;
let sourceToken: string;
let archive: Buffer;
let photoId: string;

const auth = (token: string) => ({ authorization: `Bearer ${token}` });
async function call<T>(token: string, method: 'GET' | 'POST', url: string, payload?: unknown): Promise<T> {
  const response = await t.app.inject({
    method,
    url,
    headers: auth(token),
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
  expect(response.statusCode, `${method} ${url}: ${response.body}`).toBeLessThan(300);
  return response.json<T>();
}

const range = `since_time=${DAY / 1000}&until_time=${(DAY + 24 * H) / 1000}`;
const visitsOf = (token: string) => call<VisitJson[]>(token, 'GET', `/locations/visits?${range}`);
const tripsOf = (token: string) => call<TripJson[]>(token, 'GET', `/locations/trips?${range}`);
const placesOf = async (token: string) =>
  (await call<Place[]>(token, 'GET', '/places')).sort((a, b) => (a.name ?? '').localeCompare(b.name ?? ''));

async function restore(token: string, bytes: Buffer): Promise<Import> {
  const response = await uploadImport(t, token, bytes, 'export.zip');
  expect(response.statusCode, response.body).toBe(202);
  await drain(importWorker(t, { restore: restoreDeps(t.config, media) }));
  return call<Import>(token, 'GET', `/imports/${response.json<{ id: string }>().id}`);
}

/** What the import job left of a person: visits stored, days still waiting for detection. */
async function detected(userId: string) {
  const count = async (table: 'visits' | 'visit_marks') =>
    Number(
      (
        await t.database.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('user_id', '=', userId)
          .executeTakeFirstOrThrow()
      ).n,
    );
  return { visits: await count('visits'), marks: await count('visit_marks') };
}

async function freshPerson(username: string) {
  const user = await createTestUser(t.database, { username });
  return { user, token: await tokenFor(t, user, RESTORE) };
}

beforeAll(async () => {
  t = await buildTestApp();
  media = lazyMedia(t.config);
  const owner = await createTestUser(t.database, { username: 'source' });
  sourceToken = await tokenFor(t, owner, ['get_private_scope', 'write_locations', 'upload_media', 'export']);
  for (const batch of batches(day())) await call(sourceToken, 'POST', '/locations', batch);
  expect((await visitsOf(sourceToken)).length).toBe(3);
  await call(sourceToken, 'POST', '/places', { name: 'Office', lat: office.lat, lon: office.lon, radius_m: 150 });
  const friendsPlace = await call<Place>(sourceToken, 'POST', '/places', {
    name: 'Friends',
    ...friends,
    radius_m: 250,
  });
  const [morning, atOffice] = await visitsOf(sourceToken);
  expect(atOffice!.place.name).toBe('Office');
  await call(sourceToken, 'POST', `/locations/visits/${morning!.id}`, { place_id: friendsPlace.id });
  await call(sourceToken, 'POST', `/locations/visits/${atOffice!.id}`, { not_a_stay: true });
  // Taken during the walk to the office, without GPS: placed by the history.
  const photo = await sharp({ create: { width: 32, height: 24, channels: 3, background: '#446688' } })
    .jpeg()
    .withExif({ IFD2: { DateTimeOriginal: '2024:05:06 08:15:00' } })
    .toBuffer();
  const uploaded = await uploadMedium(t, sourceToken, photo, 'walk.jpg', 'image/jpeg', { scope: 'private' });
  expect(uploaded.statusCode).toBe(201);
  expect(uploaded.json<Medium>().location_source).toBe('history');
  photoId = uploaded.json<Medium>().id;
  const exported = await t.app.inject({ url: '/export', headers: auth(sourceToken) });
  expect(exported.statusCode).toBe(200);
  archive = exported.rawPayload;
}, 120_000);
afterAll(async () => {
  media?.close();
  await t?.close();
});

describe('the export', () => {
  it('holds the places, named and unnamed, and the corrections, in seconds', async () => {
    const files = await readZip(archive);
    const places = JSON.parse(files.get(ENTRIES.places)!.toString()) as PlaceRecord[];
    const source = await placesOf(sourceToken);
    expect(places.map((p) => [p.name, p.radius_m, p.city, p.country]).sort()).toEqual([
      [null, 100, 'Berlin', 'DE'],
      ['Friends', 250, 'Berlin', 'DE'],
      ['Office', 150, 'Berlin', 'DE'],
    ]);
    expect(places.map(({ id }) => id).sort()).toEqual(source.map(({ id }) => id).sort());
    const corrections = JSON.parse(files.get(ENTRIES.visitCorrections)!.toString()) as VisitCorrectionRecord[];
    const friendsId = source.find((p) => p.name === 'Friends')!.id;
    expect(corrections.map((c) => [c.kind, c.place_id])).toEqual([
      ['place', friendsId],
      ['not_a_stay', null],
    ]);
    // The stretch of the office visit, in seconds like every time in the archive.
    expect(corrections[1]!.start_time).toBeGreaterThan(Date.parse('2024-05-06T08:20:00Z') / 1000);
    expect(corrections[1]!.end_time).toBeLessThan(Date.parse('2024-05-06T17:10:00Z') / 1000);
    const line = files.get(ENTRIES.media)!.toString().trim();
    expect((JSON.parse(line) as Medium).location_source).toBe('history');
  });
});

describe('restoring it into a fresh account', () => {
  let person: Awaited<ReturnType<typeof freshPerson>>;
  let done: Import;
  /** The source's objects with the ids the places got on this account. */
  let renamed: (value: unknown) => unknown;
  beforeAll(async () => {
    person = await freshPerson('restored');
    done = await restore(person.token, archive);
    const ids = new Map((await placesOf(sourceToken)).map((p) => [p.id, derivedId(person.user.id, 'places', p.id, 0)]));
    renamed = (value) =>
      JSON.parse(JSON.stringify(value), (_key, v: unknown) => (typeof v === 'string' ? (ids.get(v) ?? v) : v));
  }, 120_000);

  it('counts the places and corrections it brought back', async () => {
    expect(done.status).toBe('done');
    expect(done.errors).toEqual([]);
    expect(done.items?.places).toEqual({ seen: 3, stored: 3, duplicates: 0, skipped: 0 });
    expect(done.items?.visit_corrections).toEqual({ seen: 2, stored: 2, duplicates: 0, skipped: 0 });
    expect(done.items?.media).toEqual({ seen: 1, stored: 1, duplicates: 0, skipped: 0 });
    // The import job detected the restored points' days before it ended: nothing is left to do.
    expect(await detected(person.user.id)).toEqual({ visits: 2, marks: 0 });
  });

  it('gives the same places, visits and trips: the not_a_stay visit stays gone, the place correction holds', async () => {
    const places = await placesOf(person.token);
    expect(places.map((p) => [p.name, p.radius_m, p.visits])).toEqual([
      [null, 100, 1],
      ['Friends', 250, 1],
      ['Office', 150, 0],
    ]);
    expect(places).toEqual(renamed(await placesOf(sourceToken)));
    const visits = await visitsOf(person.token);
    expect(visits.map((v) => v.place.name)).toEqual(['Friends', null]);
    expect(visits).toEqual(renamed(await visitsOf(sourceToken)));
    const trips = await tripsOf(person.token);
    expect(trips).toHaveLength(1);
    expect(trips).toEqual(await tripsOf(sourceToken));
  });

  it("keeps the medium's location_source", async () => {
    const source = await call<Medium>(sourceToken, 'GET', `/media/id/${photoId}`);
    const restored = await call<Medium>(
      person.token,
      'GET',
      `/media/id/${derivedId(person.user.id, 'media', photoId, 0)}`,
    );
    expect(restored.location_source).toBe('history');
    expect(restored.location).toEqual(source.location);
  });

  it('a second time adds nothing', async () => {
    const again = await restore(person.token, archive);
    expect(again.errors).toEqual([]);
    expect(again.items?.places).toEqual({ seen: 3, stored: 0, duplicates: 3, skipped: 0 });
    expect(again.items?.visit_corrections).toEqual({ seen: 2, stored: 0, duplicates: 2, skipped: 0 });
    expect((await visitsOf(person.token)).map((v) => v.place.name)).toEqual(['Friends', null]);
  });
});

describe('restoring places and corrections over points the person has', () => {
  it('detects the days of the visits they touch again', async () => {
    const person = await freshPerson('points_first');
    const files = await readZip(archive);
    const withoutVisits = makeZip(
      [...files]
        .filter(([name]) => name !== ENTRIES.places && name !== ENTRIES.visitCorrections)
        .map(([name, data]) => ({ name, data })),
    );
    expect((await restore(person.token, withoutVisits)).errors).toEqual([]);
    expect((await visitsOf(person.token)).map((v) => v.place.name)).toEqual([null, null, null]);
    const done = await restore(person.token, archive);
    expect(done.errors).toEqual([]);
    expect([done.points_stored, done.items?.places.stored, done.items?.visit_corrections.stored]).toEqual([0, 3, 2]);
    expect(await detected(person.user.id)).toEqual({ visits: 2, marks: 0 });
    expect((await visitsOf(person.token)).map((v) => v.place.name)).toEqual(['Friends', null]);
  });
});
