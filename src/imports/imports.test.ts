// POST/GET/DELETE /imports through HTTP on a real database, the import job run by a worker:
// Records.json and GPX end to end, detection refusing what is no location file, the undo, a
// cancel mid-import, a worker killed mid-import, a truncated file, and no upload making a 5xx.
import fc from 'fast-check';
import { clearImportFiles, importFileNames } from '../../test/storage.ts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, countRows, createTestUser, type TestApp } from '../../test/helpers.ts';
import { drain, importWorker, uploadImport } from '../../test/imports.ts';
import { tokenFor } from '../../test/tokens.ts';
import { makeZip } from '../../test/zip.ts';
import { importFiles } from './imports.files.ts';
import { deleteImport } from './imports.logic.ts';

let t: TestApp;
let user: Awaited<ReturnType<typeof createTestUser>>;
let other: Awaited<ReturnType<typeof createTestUser>>;
let writer: string;
let otherWriter: string;

beforeAll(async () => {
  t = await buildTestApp({ env: { WAYPOST_IMPORT_LIMIT: '200000' } });
  user = await createTestUser(t.database, { username: 'traveller' });
  other = await createTestUser(t.database, { username: 'stranger' });
  writer = await tokenFor(t, user, ['write_locations']);
  otherWriter = await tokenFor(t, other, ['write_locations']);
});
afterAll(() => t.close());
beforeEach(async () => {
  await t.database.db.deleteFrom('locations').execute();
  await t.database.db.deleteFrom('imports').execute();
  await t.database.db.deleteFrom('jobs').execute();
  await clearImportFiles(t);
});

const get = (url: string, token = writer) =>
  t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
const del = (url: string, token = writer) =>
  t.app.inject({ method: 'DELETE', url, headers: { authorization: `Bearer ${token}` } });

async function points() {
  const rows = await t.database.db
    .selectFrom('locations')
    .select(['time', 'lat', 'lon', 'alt', 'accuracy', 'speed', 'heading', 'scope', 'import_id'])
    .orderBy('time')
    .execute();
  return rows;
}

const T0 = Date.UTC(2023, 0, 2, 3, 4, 5);
const records = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => ({
    latitudeE7: 481_000_000 + (from + i) * 100,
    longitudeE7: 115_000_000 + (from + i) * 100,
    accuracy: 10,
    timestamp: new Date(T0 + (from + i) * 60_000).toISOString(),
  }));
const recordsJson = (n: number) => JSON.stringify({ locations: records(n) }, null, 2);

const anyString: unknown = expect.any(String);
const anyNumber: unknown = expect.any(Number);

describe('POST /imports', () => {
  it('answers 202 with Location and the queued import, then the job stores Records.json points with every field', async () => {
    const file = JSON.stringify({
      locations: [
        {
          latitudeE7: 481_234_567,
          longitudeE7: 115_123_456,
          accuracy: 12,
          altitude: 520,
          velocity: 3,
          heading: 90,
          timestamp: '2023-05-01T10:00:00.123Z',
        },
        { latitudeE7: 481_234_568, longitudeE7: 115_123_457, timestampMs: '1682935260000', source: 'WIFI' },
        // A negative latitude written as an unsigned 32-bit number (some exports do this).
        { latitudeE7: 4_294_967_296 - 338_000_000, longitudeE7: 1_512_000_000, timestamp: '2023-05-01T10:02:00Z' },
        { latitudeE7: 481_234_569, longitudeE7: 115_123_458 },
      ],
    });
    const response = await uploadImport(t, writer, file, 'Records.json');
    expect(response.statusCode).toBe(202);
    const body = response.json<{ id: string }>();
    expect(response.headers.location).toBe(`/imports/${body.id}`);
    expect(body).toEqual({
      id: anyString,
      status: 'queued',
      format: 'google-records',
      filename: 'Records.json',
      size: Buffer.byteLength(file),
      progress: 0,
      points_seen: 0,
      points_stored: 0,
      duplicates: 0,
      skipped: 0,
      errors: [],
      items: null,
      created_at: anyNumber,
      started_at: null,
      finished_at: null,
    });
    await drain(importWorker(t));
    const done = (await get(`/imports/${body.id}`)).json<Record<string, unknown>>();
    expect(done).toEqual({
      ...body,
      status: 'done',
      progress: 1,
      points_seen: 4,
      points_stored: 3,
      skipped: 1,
      errors: [{ where: 'Records.json: locations[3]', message: 'has no valid time' }],
      started_at: anyNumber,
      finished_at: anyNumber,
    });
    expect(await points()).toEqual([
      {
        time: 1682935200123,
        lat: 48.1234567,
        lon: 11.5123456,
        alt: 520,
        accuracy: 12,
        speed: 3,
        heading: 90,
        scope: 'private',
        import_id: body.id,
      },
      {
        time: 1682935260000,
        lat: 48.1234568,
        lon: 11.5123457,
        alt: null,
        accuracy: null,
        speed: null,
        heading: null,
        scope: 'private',
        import_id: body.id,
      },
      {
        time: 1682935320000,
        lat: -33.8,
        lon: 151.2,
        alt: null,
        accuracy: null,
        speed: null,
        heading: null,
        scope: 'private',
        import_id: body.id,
      },
    ]);
    // The upload is not kept once the import has ended.
    expect(await importFileNames(t)).toEqual([]);
  });

  it('reads GPX 1.1 tracks, routes and waypoints and GPX 1.0 speed and course; points without time are skipped', async () => {
    const gpx11 = `<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
  <wpt lat="48.1" lon="11.5"><ele>500</ele><time>2023-06-01T08:00:00Z</time><name>Start</name></wpt>
  <wpt lat="48.0" lon="11.0"><name>No time</name></wpt>
  <rte><rtept lat="48.2" lon="11.6"><time>2023-06-01T08:30:00Z</time></rtept></rte>
  <trk><name>Walk</name><trkseg>
    <trkpt lat="48.3" lon="11.7"><ele>510.5</ele><time>2023-06-01T09:00:00Z</time></trkpt>
    <trkpt lat="48.4" lon="11.8"><time>2023-06-01T09:00:05.500Z</time></trkpt>
  </trkseg><trkseg>
    <trkpt lat="48.5" lon="11.9"/>
    <trkpt lat="95" lon="11.9"><time>2023-06-01T09:01:00Z</time></trkpt>
  </trkseg></trk>
</gpx>`;
    const gpx10 = `<?xml version="1.0"?>
<gpx version="1.0" creator="old" xmlns="http://www.topografix.com/GPX/1/0">
  <trk><trkseg><trkpt lat="-12.5" lon="-45.25"><ele>3</ele><time>2004-01-01T00:00:00Z</time><course>270</course><speed>1.5</speed></trkpt></trkseg></trk>
</gpx>`;
    const a = (await uploadImport(t, writer, gpx11, 'walk.gpx')).json<{ id: string; format: string }>();
    const b = (await uploadImport(t, writer, gpx10, 'old.gpx', { scope: 'public' })).json<{
      id: string;
      format: string;
    }>();
    expect([a.format, b.format]).toEqual(['gpx', 'gpx']);
    await drain(importWorker(t));
    expect((await get(`/imports/${a.id}`)).json()).toMatchObject({
      status: 'done',
      points_seen: 7,
      points_stored: 4,
      skipped: 3,
      errors: [{ where: 'walk.gpx: trkpt[3]', message: 'has no valid latitude and longitude' }],
    });
    const at = (iso: string) => Date.parse(iso);
    expect((await points()).map((p) => [p.time, p.lat, p.lon, p.alt, p.speed, p.heading, p.scope])).toEqual([
      [at('2004-01-01T00:00:00Z'), -12.5, -45.25, 3, 1.5, 270, 'public'],
      [at('2023-06-01T08:00:00Z'), 48.1, 11.5, 500, null, null, 'private'],
      [at('2023-06-01T08:30:00Z'), 48.2, 11.6, null, null, null, 'private'],
      [at('2023-06-01T09:00:00Z'), 48.3, 11.7, 510.5, null, null, 'private'],
      [at('2023-06-01T09:00:05.500Z'), 48.4, 11.8, null, null, null, 'private'],
    ]);
  });

  it('works out the statistics of what it stored before it says done, so no request has to', async () => {
    const { id } = (await uploadImport(t, writer, recordsJson(40), 'Records.json')).json<{ id: string }>();
    await drain(importWorker(t));
    expect((await get(`/imports/${id}`)).json()).toMatchObject({ status: 'done', points_stored: 40 });
    const dirty = await t.database.db
      .selectFrom('location_dirty')
      .select('bucket')
      .where('user_id', '=', user.id)
      .execute();
    expect(dirty).toEqual([]);
    const buckets = await t.database.db
      .selectFrom('location_buckets')
      .select((eb) => eb.fn.sum<number>('points').as('points'))
      .where('user_id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(Number(buckets.points)).toBe(40);
  });

  it('handles a byte-order mark and CRLF line ends', async () => {
    const file = '\uFEFF' + recordsJson(3).replace(/\n/g, '\r\n');
    const { id } = (await uploadImport(t, writer, file, 'Records.json')).json<{ id: string }>();
    await drain(importWorker(t));
    expect((await get(`/imports/${id}`)).json()).toMatchObject({ status: 'done', points_stored: 3, errors: [] });
  });

  it('a file that ends early keeps what was read and says it was truncated', async () => {
    const whole = recordsJson(5);
    const cut = whole.slice(0, whole.indexOf('"timestamp"', whole.indexOf('latitudeE7": 481000400')) + 5);
    const { id } = (await uploadImport(t, writer, cut, 'Records.json')).json<{ id: string }>();
    await drain(importWorker(t));
    expect((await get(`/imports/${id}`)).json()).toMatchObject({
      status: 'done',
      progress: 1,
      points_seen: 4,
      points_stored: 4,
      errors: [
        {
          where: `Records.json: byte ${Buffer.byteLength(cut)}`,
          message: 'the file ends early (truncated); the records before were read',
        },
      ],
    });
  });

  it('fails a bracket bomb ({"locations":[[[[...) at the nesting limit, naming it, on its first attempt', async () => {
    const record = JSON.stringify(records(1)[0]);
    const file = `{"locations":[${record},${'['.repeat(150_000)}`;
    const { id } = (await uploadImport(t, writer, file, 'Records.json')).json<{ id: string }>();
    await drain(importWorker(t));
    expect((await get(`/imports/${id}`)).json()).toMatchObject({
      status: 'failed',
      points_seen: 0,
      points_stored: 0,
      errors: [
        {
          where: 'Records.json',
          message: `the import stopped: import_too_deep: Records.json: byte ${14 + record.length + 1 + 62} nests deeper than 64 levels; the file was not read further`,
        },
      ],
    });
    const job = await t.database.db.selectFrom('jobs').select(['status', 'attempts']).executeTakeFirstOrThrow();
    expect(job).toEqual({ status: 'failed', attempts: 1 });
    expect((await importFileNames(t)).includes(id)).toBe(false);
  });

  it('refuses at once, with 400 saying what it is, a file in no location format', async () => {
    const png = Buffer.from(
      '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d6a5c00000000049454e44ae426082',
      'hex',
    );
    const cases: [Buffer | string, string][] = [
      [png, 'a PNG file (image/png)'],
      ['{"name": "not a history", "values": [1, 2]}', 'a JSON object whose first field is "name"'],
      ['<html><body>hello</body></html>', 'XML whose root element is <html>'],
      ['just some words\nand more\n', 'text in none of the formats'],
      ['', 'an empty file'],
    ];
    for (const [file, seen] of cases) {
      const response = await uploadImport(t, writer, file, 'thing');
      expect(response.statusCode).toBe(400);
      expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(response.json()).toMatchObject({
        code: 'invalid_request',
        detail: expect.stringContaining(`it looks like ${seen}.`) as unknown,
        errors: [{ path: 'body/file', message: `is ${seen}, not a location format` }],
      });
    }
    expect(await countRows(t.database, 'imports')).toBe(0);
    expect(await importFileNames(t)).toEqual([]);
  });

  it('400 for an unknown format or scope, an unknown field, no file; 413 over the limit; 401 without write_locations', async () => {
    const file = recordsJson(1);
    expect((await uploadImport(t, writer, file, 'r.json', { format: 'shp' })).json()).toMatchObject({
      status: 400,
      errors: [{ path: 'body/format', message: expect.stringContaining('must be one of google-records') as unknown }],
    });
    expect((await uploadImport(t, writer, file, 'r.json', { scope: 'friends' })).json()).toMatchObject({
      status: 400,
      errors: [{ path: 'body/scope', message: 'must be "public" or "private"' }],
    });
    expect((await uploadImport(t, writer, file, 'r.json', { name: 'x' })).json()).toMatchObject({
      status: 400,
      errors: [{ path: 'body/name', message: 'is not a known field' }],
    });
    const big = await uploadImport(t, writer, recordsJson(2000), 'r.json');
    expect(big.statusCode).toBe(413);
    expect(big.json()).toMatchObject({ code: 'payload_too_large' });
    const reader = await tokenFor(t, user, ['get_private_scope']);
    expect((await uploadImport(t, reader, file, 'r.json')).statusCode).toBe(401);
    expect((await get('/imports', reader)).statusCode).toBe(401);
    expect(await countRows(t.database, 'imports')).toBe(0);
    expect(await importFileNames(t)).toEqual([]);
  });

  it('takes the format when given, even for content it would not detect', async () => {
    const response = await uploadImport(t, writer, '{"name": "x"}', 'x.json', { format: 'google-records' });
    expect(response.statusCode).toBe(202);
    await drain(importWorker(t));
    expect((await get(`/imports/${response.json<{ id: string }>().id}`)).json()).toMatchObject({
      status: 'done',
      format: 'google-records',
      points_seen: 0,
    });
  });

  it('no upload makes a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
          fc.json().map((json) => `{"locations": [${json}`),
          fc.string({ maxLength: 200 }).map((s) => `<?xml version="1.0"?><gpx>${s}`),
          fc.string({ maxLength: 100 }).map((s) => `time,lat,lon\n${s}`),
          fc
            .tuple(fc.uint8Array({ maxLength: 200 }), fc.nat(400))
            .map(([bytes, cut]) => makeZip([{ name: 'Records.json', data: Buffer.from(bytes) }]).subarray(0, 40 + cut)),
        ),
        fc.dictionary(fc.constantFrom('format', 'scope', 'x'), fc.constantFrom('gpx', 'google-records', 'public', ''), {
          maxKeys: 2,
        }),
        async (bytes, fields) => {
          const response = await uploadImport(t, writer, bytes, 'f', fields);
          expect(response.statusCode).toBeLessThan(500);
        },
      ),
      { numRuns: 60 },
    );
    await drain(importWorker(t));
    const statuses = await t.database.db.selectFrom('imports').select('status').execute();
    expect(statuses.every((row) => row.status === 'done')).toBe(true);
  });
});

describe('a Google Takeout zip', () => {
  it('imports every location file inside, counted together, and lists the files it did not read', async () => {
    const gpx = `<gpx version="1.1"><wpt lat="1.5" lon="2.5"><time>2020-02-01T00:00:00Z</time></wpt><wpt lat="1" lon="2"/></gpx>`;
    const zip = makeZip([
      { name: 'Takeout/archive_browser.html', data: '<html><body>Takeout</body></html>' },
      { name: 'Takeout/Location History/Records.json', data: recordsJson(3) },
      { name: 'Takeout/Fit/trip.gpx', data: gpx },
    ]);
    const response = await uploadImport(t, writer, zip, 'takeout-20240101.zip');
    expect(response.json()).toMatchObject({ status: 'queued', format: 'zip', size: zip.length });
    await drain(importWorker(t));
    expect((await get(`/imports/${response.json<{ id: string }>().id}`)).json()).toMatchObject({
      status: 'done',
      progress: 1,
      points_seen: 5,
      points_stored: 4,
      skipped: 1,
      errors: [
        {
          where: 'takeout-20240101.zip: Takeout/archive_browser.html',
          message: 'is XML whose root element is <html>, not a location file; not read',
        },
      ],
    });
    expect(await countRows(t.database, 'locations')).toBe(4);
  });

  it('a Semantic Location History month whose segments carry the trip, as Takeout writes it, stores every point', async () => {
    // Takeout/Location History/Semantic Location History/YYYY/YYYY_MONTH.json, pretty-printed as
    // Google writes it; the newer ISO times and the older epoch-millisecond strings.
    const segment = (start: string | { ms: string }, end: string | { ms: string }, raw: Record<string, unknown>) => ({
      activitySegment: {
        startLocation: { latitudeE7: 481_372_000, longitudeE7: 115_756_000, sourceInfo: { deviceTag: -1_234_567 } },
        endLocation: { latitudeE7: 481_500_000, longitudeE7: 116_000_000, sourceInfo: { deviceTag: -1_234_567 } },
        duration:
          typeof start === 'string'
            ? { startTimestamp: start, endTimestamp: end as string }
            : { startTimestampMs: start.ms, endTimestampMs: (end as { ms: string }).ms },
        distance: 3012,
        activityType: 'IN_PASSENGER_VEHICLE',
        confidence: 'HIGH',
        activities: [
          { activityType: 'IN_PASSENGER_VEHICLE', probability: 91.4 },
          { activityType: 'WALKING', probability: 5.1 },
        ],
        waypointPath: {
          waypoints: [{ latE7: 481_400_000, lngE7: 115_800_000 }],
          source: 'INFERRED',
          roadSegment: [{ placeId: 'ChIJ2V-Mo_l1nkcRfZixfUq4DAE', duration: '12s' }],
          distanceMeters: 2990.3,
          travelMode: 'DRIVE',
          confidence: 0.99,
        },
        simplifiedRawPath: { points: [{ latE7: 481_420_000, lngE7: 115_850_000, accuracyMeters: 8, ...raw }] },
        editConfirmationStatus: 'NOT_CONFIRMED',
      },
    });
    const month = JSON.stringify(
      {
        timelineObjects: [
          segment('2022-03-01T09:00:00.500Z', '2022-03-01T10:00:00.500Z', { timestamp: '2022-03-01T09:30:00Z' }),
          segment({ ms: '1646215200000' }, { ms: '1646218800000' }, { timestampMs: '1646216900000' }),
        ],
      },
      null,
      2,
    );
    const zip = makeZip([
      { name: 'Takeout/Location History/Semantic Location History/2022/2022_MARCH.json', data: month },
    ]);
    const response = await uploadImport(t, writer, zip, 'takeout-20240101.zip');
    await drain(importWorker(t));
    expect((await get(`/imports/${response.json<{ id: string }>().id}`)).json()).toMatchObject({
      status: 'done',
      points_seen: 8,
      points_stored: 8,
      skipped: 0,
      errors: [],
    });
    const at = (iso: string) => Date.parse(iso);
    expect((await points()).map((p) => [p.time, p.lat, p.lon, p.accuracy])).toEqual([
      [at('2022-03-01T09:00:00.500Z'), 48.1372, 11.5756, null],
      [at('2022-03-01T09:30:00.000Z'), 48.142, 11.585, 8],
      [at('2022-03-01T09:30:00.500Z'), 48.14, 11.58, null],
      [at('2022-03-01T10:00:00.500Z'), 48.15, 11.6, null],
      [at('2022-03-02T10:00:00.000Z'), 48.1372, 11.5756, null],
      [at('2022-03-02T10:28:20.000Z'), 48.142, 11.585, 8],
      [at('2022-03-02T10:30:00.000Z'), 48.14, 11.58, null],
      [at('2022-03-02T11:00:00.000Z'), 48.15, 11.6, null],
    ]);
  });

  it("a day exported from Google Maps' Timeline as KML: places with a TimeSpan and no when, and the trips between", async () => {
    const placemark = (name: string, geometry: string, begin: string, end: string) => `
    <Placemark>
      <name>${name}</name>
      <address>Marienplatz, 80331 München, Germany</address>
      <ExtendedData>
        <Data name="Email"><value>someone@example.com</value></Data>
        <Data name="Category"><value>Visiting</value></Data>
        <Data name="Distance"><value>0</value></Data>
      </ExtendedData>
      <description>${name} from ${begin} to ${end}. Distance 0m </description>
      ${geometry}
      <TimeSpan>
        <begin>${begin}</begin>
        <end>${end}</end>
      </TimeSpan>
    </Placemark>`;
    const kml = `<?xml version='1.0' encoding='UTF-8'?>
<kml xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2" xmlns:kml="http://www.opengis.net/kml/2.2" xmlns:atom="http://www.w3.org/2005/Atom">
  <Document>
    <name>Location history from 2021-07-01 to 2021-07-01 </name>
    <open>1</open>
    <description/>
    <Style id="multiTrack_n"><IconStyle><Icon><href>https://earth.google.com/images/kml-icons/track-directional/track-0.png</href></Icon></IconStyle></Style>
    ${placemark('Home', '<Point><coordinates>11.5756,48.1372,0</coordinates></Point>', '2021-07-01T00:00:00.000Z', '2021-07-01T08:00:00.000Z')}
    ${placemark(
      'Driving',
      `<LineString><altitudeMode>clampToGround</altitudeMode><extrude>1</extrude><tesselate>1</tesselate>
        <coordinates>11.5756,48.1372,0 11.58,48.14,0 11.6,48.15,0</coordinates></LineString>`,
      '2021-07-01T08:00:00.000Z',
      '2021-07-01T08:20:00.000Z',
    )}
    ${placemark('Office', '<Point><coordinates>11.6,48.15,0</coordinates></Point>', '2021-07-01T08:20:00.000Z', '2021-07-01T17:00:00.000Z')}
    ${placemark('A moment', '<Point><coordinates>11.61,48.16,0</coordinates></Point>', '2021-07-01T18:00:00.000Z', '2021-07-01T18:00:00.000Z')}
  </Document>
</kml>`;
    const response = await uploadImport(t, writer, kml, 'history-2021-07-01.kml');
    expect(response.json()).toMatchObject({ format: 'kml' });
    await drain(importWorker(t));
    expect((await get(`/imports/${response.json<{ id: string }>().id}`)).json()).toMatchObject({
      status: 'done',
      // A trip starts where and when the place before it ends: those two points are one.
      points_seen: 8,
      points_stored: 6,
      skipped: 0,
      errors: [],
    });
    const at = (iso: string) => Date.parse(iso);
    expect((await points()).map((p) => [p.time, p.lat, p.lon])).toEqual([
      [at('2021-07-01T00:00:00Z'), 48.1372, 11.5756],
      [at('2021-07-01T08:00:00Z'), 48.1372, 11.5756],
      [at('2021-07-01T08:10:00Z'), 48.14, 11.58],
      [at('2021-07-01T08:20:00Z'), 48.15, 11.6],
      [at('2021-07-01T17:00:00Z'), 48.15, 11.6],
      [at('2021-07-01T18:00:00Z'), 48.16, 11.61],
    ]);
  });

  it('refuses a zip with no location file in it', async () => {
    const response = await uploadImport(t, writer, makeZip([{ name: 'notes.txt', data: 'hello' }]), 'x.zip');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      errors: [
        { path: 'body/file', message: 'is a zip archive whose 1 files are none of the formats, not a location format' },
      ],
    });
  });
});

describe('GET /imports', () => {
  it("lists the caller's imports, newest first; another person's import is 404", async () => {
    const first = (await uploadImport(t, writer, recordsJson(1), 'a.json')).json<{ id: string }>();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = (await uploadImport(t, writer, recordsJson(2), 'b.json')).json<{ id: string }>();
    expect((await get('/imports')).json<{ id: string }[]>().map((i) => i.id)).toEqual([second.id, first.id]);
    expect((await get('/imports', otherWriter)).json()).toEqual([]);
    expect((await get(`/imports/${first.id}`, otherWriter)).statusCode).toBe(404);
    expect((await del(`/imports/${first.id}`, otherWriter)).statusCode).toBe(404);
    expect((await get('/imports/nope')).statusCode).toBe(404);
  });
});

describe('DELETE /imports/<id>', () => {
  it('removes exactly the points the import stored, not one another source stored first', async () => {
    const [firstRecord] = records(1);
    const before = await t.app.inject({
      method: 'POST',
      url: '/locations',
      headers: { authorization: `Bearer ${writer}`, 'content-type': 'application/json' },
      payload: JSON.stringify([{ time: Date.parse(firstRecord!.timestamp) / 1000, lat: 48.1, lon: 11.5 }]),
    });
    expect(before.json()).toEqual({ stored: 1, duplicates: 0 });
    const a = (await uploadImport(t, writer, recordsJson(3), 'a.json')).json<{ id: string }>();
    const b = (await uploadImport(t, writer, JSON.stringify({ locations: records(2, 10) }), 'b.json')).json<{
      id: string;
    }>();
    await drain(importWorker(t));
    expect((await get(`/imports/${a.id}`)).json()).toMatchObject({ points_stored: 2, duplicates: 1 });
    expect(await countRows(t.database, 'locations')).toBe(5);
    const response = await del(`/imports/${a.id}`);
    expect(response.statusCode).toBe(204);
    expect((await points()).map((p) => p.import_id)).toEqual([null, b.id, b.id]);
    expect((await get(`/imports/${a.id}`)).statusCode).toBe(404);
    expect((await get('/imports')).json<{ id: string }[]>().map((i) => i.id)).toEqual([b.id]);
  });

  it('cancels a queued import: its job does nothing and the file is gone', async () => {
    const a = (await uploadImport(t, writer, recordsJson(3), 'a.json')).json<{ id: string }>();
    expect(await importFileNames(t)).toEqual([a.id]);
    expect((await del(`/imports/${a.id}`)).statusCode).toBe(204);
    expect(await importFileNames(t)).toEqual([]);
    await drain(importWorker(t));
    expect(await countRows(t.database, 'locations')).toBe(0);
    expect((await t.database.db.selectFrom('jobs').select('status').execute()).map((j) => j.status)).toEqual([
      'cancelled',
    ]);
  });

  it('cancels a running import between batches, and no point of it stays', async () => {
    const a = (await uploadImport(t, writer, recordsJson(50), 'a.json')).json<{ id: string }>();
    let batches = 0;
    const worker = importWorker(t, {
      batchRecords: 10,
      onBatch: async () => {
        batches += 1;
        if (batches === 2) await deleteImport(t.database.db, importFiles(t.config), user.id, a.id, Date.now());
      },
    });
    await drain(worker);
    expect(batches).toBe(2);
    expect(await countRows(t.database, 'locations')).toBe(0);
    expect(await countRows(t.database, 'imports')).toBe(0);
  });
});

describe('a worker killed mid-import', () => {
  it('restarts from the checkpoint: each point is stored exactly once and the counters are exact', async () => {
    const file = JSON.stringify({ locations: [...records(40), ...records(5)] }); // 5 duplicates within the file
    const a = (await uploadImport(t, writer, file, 'a.json')).json<{ id: string }>();
    let batches = 0;
    let crashes = 0;
    const worker = importWorker(t, {
      batchRecords: 7,
      onBatch: () => {
        batches += 1;
        // The third batch is committed, then the process "dies" (the job fails and is retried).
        if (batches === 3 || batches === 6) {
          crashes += 1;
          throw new Error('killed');
        }
      },
    });
    await drain(worker);
    expect(crashes).toBe(2);
    expect((await get(`/imports/${a.id}`)).json()).toMatchObject({
      status: 'done',
      points_seen: 45,
      points_stored: 40,
      duplicates: 5,
      skipped: 0,
    });
    const stored = await points();
    expect(stored).toHaveLength(40);
    expect(new Set(stored.map((p) => p.time)).size).toBe(40);
    const job = await t.database.db.selectFrom('jobs').select(['status', 'attempts']).executeTakeFirstOrThrow();
    expect(job).toEqual({ status: 'done', attempts: 3 });
  });

  it('a second worker that takes over after the lease ran out finishes it; the first can commit no more', async () => {
    const a = (await uploadImport(t, writer, recordsJson(30), 'a.json')).json<{ id: string }>();
    let clock = Date.now();
    let resumed = false;
    const second = importWorker(t, { batchRecords: 5 }, () => clock);
    const first = importWorker(
      t,
      {
        batchRecords: 5,
        onBatch: async (row) => {
          // After two batches the first worker stalls past its lease; another takes the job over and ends it.
          if (row.checkpoint === 10 && !resumed) {
            resumed = true;
            clock += 120_000;
            await drain(second);
          }
        },
      },
      () => clock,
    );
    await drain(first);
    expect((await get(`/imports/${a.id}`)).json()).toMatchObject({
      status: 'done',
      points_seen: 30,
      points_stored: 30,
      duplicates: 0,
    });
    expect(await countRows(t.database, 'locations')).toBe(30);
    expect((await importFileNames(t)).includes(a.id)).toBe(false);
  });
});
