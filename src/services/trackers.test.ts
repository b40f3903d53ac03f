// Trackers through HTTP, on a real database: services of the types owntracks, overland and
// gpslogger, their ingest tokens, and each app's protocol as the app sends it (payloads written
// from the apps' documentation: the OwnTracks booklet's JSON and HTTP pages, Overland's README,
// GPSLogger's custom URL placeholders).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestUser, type TestApp } from '../../test/helpers.ts';
import { tokenFor } from '../../test/tokens.ts';
import { sha256Hex } from '../lib/crypto.ts';
import { insertLocationsGrouped } from '../locations/locations.repo.ts';
import type { Permission } from '../core/permissions.ts';
import { updateSettings } from '../settings/settings.logic.ts';

let t: TestApp;
let alice: { id: string };
let bob: { id: string };
let alices: string;
let bobs: string;

const PERMISSIONS: Permission[] = ['get_services', 'create_service', 'delete_service', 'manage_groups'];

beforeAll(async () => {
  t = await buildTestApp();
  alice = await createTestUser(t.database);
  bob = await createTestUser(t.database);
  alices = await tokenFor(t, alice, PERMISSIONS);
  bobs = await tokenFor(t, bob, PERMISSIONS);
});
afterAll(() => t.close());

interface Created {
  id: string;
  ingest: { url: string; token: string };
}

function api(method: 'GET' | 'POST' | 'DELETE', url: string, token: string, body?: unknown) {
  return t.app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${token}` },
    ...(body === undefined ? {} : { payload: body as object }),
  });
}

async function newTracker(type: string, token = alices, extra: Record<string, unknown> = {}): Promise<Created> {
  const response = await api('POST', '/services', token, { type, name: `my ${type}`, config: {}, ...extra });
  expect(response.statusCode).toBe(201);
  return response.json<Created>();
}

const path = (url: string) => new URL(url).pathname + new URL(url).search;
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

function ingest(url: string, init: { headers?: Record<string, string>; payload?: string; query?: string } = {}) {
  return t.app.inject({
    method: 'POST',
    url: path(url) + (init.query ?? ''),
    headers: init.headers ?? {},
    ...(init.payload === undefined ? {} : { payload: init.payload }),
  });
}

function rowsFrom(source: string) {
  return t.database.db
    .selectFrom('locations')
    .select(['user_id', 'scope', 'time', 'lat', 'lon', 'alt', 'accuracy', 'speed', 'heading', 'source'])
    .where('source', '=', source)
    .orderBy('time')
    .execute();
}

async function serviceOf(id: string, token = alices) {
  return (await api('GET', `/services/${id}`, token)).json<Record<string, unknown>[]>()[0]!;
}

// The booklet's location message, with the fields an Android phone adds.
const owntracksLocation = {
  _type: 'location',
  _id: 'ebbafc6b',
  BSSID: '0c:70:63:a3:e4:d3',
  SSID: 'home',
  acc: 12,
  alt: 48,
  batt: 86,
  bs: 1,
  cog: 270,
  conn: 'w',
  created_at: 1737558540,
  lat: 52.520008,
  lon: 13.404954,
  m: 2,
  t: 'u',
  tid: 'JP',
  topic: 'owntracks/jane/phone',
  tst: 1737558539,
  vac: 5,
  vel: 36,
  inregions: ['home'],
};

describe('tracker services', () => {
  it('POST /services answers with the ingest URL and a token shown once, stored as its SHA-256', async () => {
    const response = await api('POST', '/services', alices, { type: 'owntracks', name: 'Phone', config: {} });
    expect(response.statusCode).toBe(201);
    const service = response.json<Created>();
    expect(response.headers.location).toBe(`/services/${service.id}`);
    expect(service).toEqual({
      id: expect.stringMatching(/^[0-9A-Z]{26}$/) as unknown,
      type: 'owntracks',
      name: 'Phone',
      enabled: true,
      capabilities: ['import'],
      config: {},
      status: 'ok',
      last_error: null,
      created_at: expect.any(Number) as unknown,
      ingest: {
        url: `http://waypost.test/ingest/${service.id}`,
        token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) as unknown,
      },
    });
    const row = await t.database.db.selectFrom('services').selectAll().where('id', '=', service.id).executeTakeFirst();
    expect(row?.ingest_token_hash).toBe(sha256Hex(service.ingest.token));
    expect(JSON.stringify(row)).not.toContain(service.ingest.token);

    const one = await api('GET', `/services/${service.id}`, alices);
    expect(one.json()).toEqual([
      { ...service, ingest: { url: service.ingest.url }, activity: { last_point_at: null, points_today: 0 } },
    ]);
    const list = await api('GET', '/services', alices);
    expect(list.body).not.toContain(service.ingest.token);
    expect(list.json<Created[]>().find((s) => s.id === service.id)?.ingest).toEqual({ url: service.ingest.url });
  });

  it('each tracker type takes no settings; other services show no ingest', async () => {
    for (const type of ['overland', 'gpslogger']) {
      const refused = await api('POST', '/services', alices, { type, name: 'x', config: { url: 'https://a.example' } });
      expect(refused.statusCode).toBe(400);
      expect(refused.json<{ errors: unknown }>().errors).toEqual([
        { path: 'body/config/url', message: `is not a ${type} setting` },
      ]);
    }
    const hook = await api('POST', '/services', alices, {
      type: 'webhook',
      name: 'hook',
      config: { url: 'https://hooks.example/in', secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}` },
    });
    expect(hook.json()).not.toHaveProperty('ingest');
    const read = await api('GET', `/services/${hook.json<{ id: string }>().id}`, alices);
    expect(read.json<object[]>()[0]).not.toHaveProperty('activity');
  });

  it('GET /services and /services/<id> say when points last arrived and how many today (docs/api.md)', async () => {
    // Bob's: the batch is one the Overland tests store for Alice.
    const tracker = await newTracker('overland', bobs);
    const before = Date.now() / 1000;
    const response = await ingest(tracker.ingest.url, {
      headers: { authorization: `Bearer ${tracker.ingest.token}`, 'content-type': 'application/json' },
      payload: JSON.stringify(overlandBatch),
    });
    expect(response.statusCode).toBe(200);
    const after = Date.now() / 1000;
    type Activity = { activity: { last_point_at: number; points_today: number } };
    const [one] = (await api('GET', `/services/${tracker.id}`, bobs)).json<Activity[]>();
    expect(one!.activity.points_today).toBe(2);
    expect(one!.activity.last_point_at).toBeGreaterThanOrEqual(Math.floor(before));
    expect(one!.activity.last_point_at).toBeLessThanOrEqual(Math.ceil(after));
    const listed = (await api('GET', '/services', bobs)).json<(Activity & { id: string })[]>();
    expect(listed.find((s) => s.id === tracker.id)?.activity).toEqual(one!.activity);
    // A count written on another day is not today's.
    await t.database.db.updateTable('services').set({ points_day: 1 }).where('id', '=', tracker.id).execute();
    const [stale] = (await api('GET', `/services/${tracker.id}`, bobs)).json<Activity[]>();
    expect(stale!.activity).toEqual({ last_point_at: one!.activity.last_point_at, points_today: 0 });
  });

  it('POST /services/<id>/ingest-token rotates: the old token stops working at once', async () => {
    const tracker = await newTracker('overland');
    const send = (token: string) =>
      ingest(tracker.ingest.url, {
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ locations: [] }),
      });
    expect((await send(tracker.ingest.token)).statusCode).toBe(200);
    const rotated = await api('POST', `/services/${tracker.id}/ingest-token`, alices);
    expect(rotated.statusCode).toBe(200);
    const fresh = rotated.json<{ ingest: { url: string; token: string } }>().ingest;
    expect(fresh).toEqual({ url: tracker.ingest.url, token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) as unknown });
    expect(fresh.token).not.toBe(tracker.ingest.token);
    expect((await send(tracker.ingest.token)).statusCode).toBe(401);
    expect((await send(fresh.token)).statusCode).toBe(200);
    expect((await api('GET', `/services/${tracker.id}`, alices)).body).not.toContain(fresh.token);
  });

  it('rotating needs create_service, a tracker, and one of your own services', async () => {
    const tracker = await newTracker('gpslogger');
    const reader = await tokenFor(t, alice, ['get_services']);
    const insufficient = await api('POST', `/services/${tracker.id}/ingest-token`, reader);
    expect(insufficient.statusCode).toBe(401);
    expect(insufficient.headers['www-authenticate']).toContain('error="insufficient_scope"');
    const foreign = await api('POST', `/services/${tracker.id}/ingest-token`, bobs);
    expect(foreign.statusCode).toBe(404);
    const hook = await api('POST', '/services', alices, {
      type: 'webhook',
      name: 'hook',
      config: { url: 'https://hooks.example/in', secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}` },
    });
    const notTracker = await api('POST', `/services/${hook.json<{ id: string }>().id}/ingest-token`, alices);
    expect(notTracker.statusCode).toBe(400);
    expect(notTracker.json<{ errors: unknown }>().errors).toEqual([{ path: 'params/id', message: 'is not a tracker' }]);
  });

  it('a tracker cannot join a service group (it publishes nothing), so a post never goes to it', async () => {
    const tracker = await newTracker('owntracks');
    const create = await api('POST', '/services/groups', alices, { name: 'everywhere', service_ids: [tracker.id] });
    expect(create.statusCode).toBe(400);
    expect(create.json<{ errors: unknown }>().errors).toEqual([
      { path: 'body/service_ids/0', message: 'is a owntracks service, which publishes nothing' },
    ]);
    const group = (await api('POST', '/services/groups', alices, { name: 'empty' })).json<{ id: string }>();
    const add = await api('POST', `/services/groups/${group.id}/${tracker.id}`, alices);
    expect(add.statusCode).toBe(400);
    expect(add.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(add.json<{ errors: unknown }>().errors).toEqual([
      { path: 'params/service_id', message: 'is a owntracks service, which publishes nothing' },
    ]);
    expect((await api('GET', `/services/groups/${group.id}`, alices)).json()).toMatchObject({ service_ids: [] });
  });
});

describe('OwnTracks (HTTP mode)', () => {
  it('stores a location sent with Basic auth, the token as password; vel km/h becomes m/s; answers []', async () => {
    const tracker = await newTracker('owntracks');
    const response = await ingest(tracker.ingest.url, {
      headers: {
        authorization: basic('jane', tracker.ingest.token),
        'content-type': 'application/json',
        'x-limit-u': 'jane',
        'x-limit-d': 'phone',
      },
      payload: JSON.stringify(owntracksLocation),
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.body).toBe('[]');
    expect(await rowsFrom(tracker.id)).toEqual([
      {
        user_id: alice.id,
        scope: 'private',
        time: 1737558539000,
        lat: 52.520008,
        lon: 13.404954,
        alt: 48,
        accuracy: 12,
        speed: 10,
        heading: 270,
        source: tracker.id,
      },
    ]);
  });

  it('accepts every other message type and an empty body, storing nothing; an array of messages too', async () => {
    const tracker = await newTracker('owntracks');
    const headers = { authorization: basic('', tracker.ingest.token), 'content-type': 'application/json' };
    const others = [
      { _type: 'transition', wtst: 1425042603, lat: 12.34, lon: 44.5, tst: 1427634603, acc: 130, event: 'enter' },
      { _type: 'waypoint', desc: 'Home', lat: 52.5, lon: 13.4, rad: 100, tst: 1425042603 },
      { _type: 'waypoints', waypoints: [] },
      { _type: 'lwt', tst: 1427634603 },
      { _type: 'card', name: 'Jane', face: 'iVBORw0KGgo=' },
      { _type: 'status', android: { wifistate: 1 } },
      { _type: 'cmd', action: 'reportLocation' },
      { _type: 'steps', steps: 120, from: 1, to: 2 },
      { _type: 'encrypted', data: 'c2VjcmV0' },
    ];
    for (const message of others) {
      const response = await ingest(tracker.ingest.url, { headers, payload: JSON.stringify(message) });
      expect([message._type, response.statusCode, response.body]).toEqual([message._type, 200, '[]']);
    }
    const empty = await ingest(tracker.ingest.url, { headers, payload: '' });
    expect([empty.statusCode, empty.body]).toEqual([200, '[]']);
    expect(await rowsFrom(tracker.id)).toEqual([]);

    // (Times of their own: a point another test stored for the same person would be a duplicate.)
    const at = (tst: number) => ({ ...owntracksLocation, tst });
    const batch = [at(1737600000), others[0], at(1737600060)];
    const many = await ingest(tracker.ingest.url, { headers, payload: JSON.stringify(batch) });
    expect([many.statusCode, many.body]).toEqual([200, '[]']);
    expect((await rowsFrom(tracker.id)).map((row) => row.time)).toEqual([1737600000000, 1737600060000]);
  });

  it('leaves out a location it cannot read with 200 (the app would resend it forever), and says so', async () => {
    const tracker = await newTracker('owntracks');
    const headers = { authorization: basic('jane', tracker.ingest.token), 'content-type': 'application/json' };
    const bad = await ingest(tracker.ingest.url, {
      headers,
      payload: JSON.stringify({ ...owntracksLocation, lat: 91 }),
    });
    expect([bad.statusCode, bad.body]).toEqual([200, '[]']);
    expect(await rowsFrom(tracker.id)).toEqual([]);
    expect(await serviceOf(tracker.id)).toMatchObject({
      status: 'error',
      last_error:
        '1 point(s) from OwnTracks could not be read and were left out; first: body/lat must be from -90 to 90',
    });
    const good = await ingest(tracker.ingest.url, { headers, payload: JSON.stringify(owntracksLocation) });
    expect(good.statusCode).toBe(200);
    expect(await serviceOf(tracker.id)).toMatchObject({ status: 'ok', last_error: null });

    const notJson = await ingest(tracker.ingest.url, { headers, payload: '{"_type": "location",' });
    expect(notJson.statusCode).toBe(400);
    expect(notJson.json()).toMatchObject({ status: 400, errors: [{ path: 'body', message: 'is not JSON' }] });
  });

  it("points get the person's default scope for locations", async () => {
    const carol = await createTestUser(t.database);
    await updateSettings(t.database.db, carol.id, { defaultScopes: { locations: 'public' } });
    const tracker = await newTracker('owntracks', await tokenFor(t, carol, ['create_service']));
    await ingest(tracker.ingest.url, {
      headers: { authorization: basic('carol', tracker.ingest.token), 'content-type': 'application/json' },
      payload: JSON.stringify(owntracksLocation),
    });
    expect(await rowsFrom(tracker.id)).toMatchObject([{ user_id: carol.id, scope: 'public', source: tracker.id }]);
    // The same insert path as POST /locations: the person's public counter moved with it.
    const counters = await t.database.db
      .selectFrom('users')
      .select('public_locations')
      .where('id', '=', carol.id)
      .executeTakeFirst();
    expect(Number(counters?.public_locations)).toBe(1);
  });
});

// Overland's README: a batch of GeoJSON Features, ISO 8601 timestamps with an offset.
const overlandBatch = {
  locations: [
    {
      type: 'Feature',
      geometry: { type: 'Point', coordinates: [-122.621, 45.535] },
      properties: {
        timestamp: '2017-01-01T10:00:00-0700',
        altitude: 0,
        speed: 4,
        horizontal_accuracy: 30,
        vertical_accuracy: -1,
        course: 91.5,
        motion: ['driving', 'stationary'],
        pauses: false,
        activity: 'other_navigation',
        desired_accuracy: 100,
        deferred: 1000,
        significant_change: 'disabled',
        locations_in_payload: 3,
        battery_state: 'charging',
        battery_level: 0.89,
        device_id: 'phone',
        wifi: '',
      },
    },
    {
      type: 'Feature',
      geometry: { type: 'Point', coordinates: [-122.622, 45.536] },
      properties: {
        timestamp: '2017-01-01T17:00:05.250Z',
        altitude: 12.5,
        speed: -1,
        horizontal_accuracy: 65,
        course: -1,
      },
    },
    {
      type: 'Feature',
      geometry: null,
      properties: { timestamp: '2017-01-01T17:00:10Z', type: 'visit', arrival_date: '2017-01-01T16:00:00Z' },
    },
    {
      type: 'Feature',
      geometry: {
        type: 'LineString',
        coordinates: [
          [-122.6, 45.5],
          [-122.7, 45.6],
        ],
      },
      properties: { timestamp: '2017-01-01T17:00:20Z' },
    },
  ],
  current: {
    type: 'Feature',
    geometry: { type: 'Point', coordinates: [-122.623, 45.537] },
    properties: { timestamp: '2017-01-01T17:01:00Z' },
  },
  trip: { mode: 'bicycle', start: '2017-01-01T16:30:00Z', distance: 1200 },
};

/** The batch moved east by `degrees`, so that one test's points are not another's duplicates. */
function movedEast(degrees: number) {
  return {
    ...overlandBatch,
    locations: overlandBatch.locations.map((feature) =>
      feature.geometry?.type === 'Point'
        ? {
            ...feature,
            geometry: { type: 'Point', coordinates: [(feature.geometry.coordinates[0]! as number) + degrees, 45.5] },
          }
        : feature,
    ),
  };
}

describe('Overland', () => {
  it('stores the Point features of a batch sent with Bearer auth and answers {"result":"ok"}', async () => {
    const tracker = await newTracker('overland');
    const response = await ingest(tracker.ingest.url, {
      headers: { authorization: `Bearer ${tracker.ingest.token}`, 'content-type': 'application/json' },
      payload: JSON.stringify(overlandBatch),
    });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('{"result":"ok"}');
    expect(await rowsFrom(tracker.id)).toEqual([
      {
        user_id: alice.id,
        scope: 'private',
        time: Date.parse('2017-01-01T17:00:00Z'),
        lat: 45.535,
        lon: -122.621,
        alt: 0,
        accuracy: 30,
        speed: 4,
        heading: 91.5,
        source: tracker.id,
      },
      {
        user_id: alice.id,
        scope: 'private',
        time: Date.parse('2017-01-01T17:00:05.250Z'),
        lat: 45.536,
        lon: -122.622,
        alt: 12.5,
        accuracy: 65,
        speed: null,
        heading: null,
        source: tracker.id,
      },
    ]);
    expect(await serviceOf(tracker.id)).toMatchObject({ status: 'ok', last_error: null });
  });

  it('drops duplicates silently: the same batch again stores nothing new', async () => {
    const tracker = await newTracker('overland');
    const send = () =>
      ingest(tracker.ingest.url, {
        headers: { authorization: `Bearer ${tracker.ingest.token}`, 'content-type': 'application/json' },
        payload: JSON.stringify(movedEast(1)),
      });
    expect((await send()).body).toBe('{"result":"ok"}');
    expect((await send()).body).toBe('{"result":"ok"}');
    expect(await rowsFrom(tracker.id)).toHaveLength(2);
  });

  it('leaves out an unreadable Point with 200 (the batch would be resent forever); no locations is 400', async () => {
    const tracker = await newTracker('overland');
    const headers = { authorization: `Bearer ${tracker.ingest.token}`, 'content-type': 'application/json' };
    const [first, second] = movedEast(2).locations;
    const bad = { ...first, properties: { ...first!.properties, timestamp: 'yesterday' } };
    const response = await ingest(tracker.ingest.url, {
      headers,
      payload: JSON.stringify({ locations: [bad, second] }),
    });
    expect([response.statusCode, response.body]).toEqual([200, '{"result":"ok"}']);
    expect(await rowsFrom(tracker.id)).toHaveLength(1);
    expect(await serviceOf(tracker.id)).toMatchObject({
      status: 'error',
      last_error:
        '1 point(s) from Overland could not be read and were left out; first: ' +
        'body/locations/0/properties/timestamp must be an ISO 8601 date-time with a time zone',
    });

    const shapeless = await ingest(tracker.ingest.url, { headers, payload: JSON.stringify({ points: [] }) });
    expect(shapeless.statusCode).toBe(400);
    expect(shapeless.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(shapeless.json<{ errors: unknown }>().errors).toEqual([
      { path: 'body/locations', message: 'must be an array of GeoJSON Features' },
    ]);
  });
});

// GPSLogger's %ALL placeholder, as the app fills it in.
const gpsloggerAll =
  'lat=41.74108695983887&lon=-91.84490871429443&sat=0&desc=&alt=1387.0&acc=6.0&dir=170.8125&prov=gps' +
  '&spd_kph=3.6&spd=1.0&timestamp=1736999691&timeoffset=2025-01-15T20:54:51.000-07:00' +
  '&time=2025-01-16T03:54:51.000Z&starttimestamp=1737000139&date=2025-01-16&batt=27.0&ischarging=false' +
  '&aid=4ca9e1da592aca9b&ser=4ca9e1da592aca9b&act=&filename=20250115&profile=Default+Profile&hdop=&vdop=&pdop=&dist=0';

describe('GPSLogger (custom URL)', () => {
  const expected = (source: string, userId: string) => ({
    user_id: userId,
    scope: 'private',
    time: Date.parse('2025-01-16T03:54:51Z'),
    lat: 41.74108695983887,
    lon: -91.84490871429443,
    alt: 1387,
    accuracy: 6,
    speed: 1,
    heading: 170.8125,
    source,
  });

  it('stores the %ALL form body, the token in the URL', async () => {
    const tracker = await newTracker('gpslogger');
    const response = await ingest(tracker.ingest.url, {
      query: `?token=${tracker.ingest.token}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: gpsloggerAll,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ stored: 1, duplicates: 0 });
    expect(await rowsFrom(tracker.id)).toEqual([expected(tracker.id, alice.id)]);
  });

  it('stores a JSON body written from the placeholders, and query parameters alone', async () => {
    const tracker = await newTracker('gpslogger', bobs);
    const json = await ingest(tracker.ingest.url, {
      headers: { authorization: basic('gpslogger', tracker.ingest.token), 'content-type': 'application/json' },
      payload:
        '{"latitude": 41.74108695983887, "longitude": -91.84490871429443, "time": "2025-01-16T03:54:51.000Z", ' +
        '"alt": "1387.0", "acc": "6.0", "spd": "1.0", "dir": "170.8125", "batt": "27.0", "prov": "gps"}',
    });
    expect(json.json()).toEqual({ stored: 1, duplicates: 0 });
    const query = await ingest(tracker.ingest.url, {
      query:
        `?lat=41.74108695983887&longitude=-91.84490871429443&timestamp=1736999691&alt=1387.0&acc=6.0` +
        `&s=1.0&dir=170.8125&token=${tracker.ingest.token}`,
    });
    expect(query.json()).toEqual({ stored: 0, duplicates: 1 });
    expect(await rowsFrom(tracker.id)).toEqual([expected(tracker.id, bob.id)]);
  });

  it('refuses a point it cannot read with 400 naming the field: the template is the person’s to fix', async () => {
    const tracker = await newTracker('gpslogger');
    const send = (payload: string) =>
      ingest(tracker.ingest.url, {
        headers: {
          authorization: `Bearer ${tracker.ingest.token}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        payload,
      });
    const cases: [string, string, string][] = [
      ['lat=%LAT&lon=13.4&time=2025-01-16T03:54:51Z', 'body/lat', 'must be a number'],
      ['lon=13.4&time=2025-01-16T03:54:51Z', 'body/lat', 'is required'],
      ['lat=52.5&lon=13.4', 'body/time', 'is required'],
      ['lat=52.5&lon=13.4&time=16.01.2025', 'body/time', 'must be an ISO 8601 date-time with a time zone'],
      ['lat=52.5&lon=13.4&timestamp=1736999691&dir=400', 'body/dir', 'must be from 0 to 360'],
    ];
    for (const [payload, field, message] of cases) {
      const response = await send(payload);
      expect(response.statusCode).toBe(400);
      expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(response.json<{ errors: unknown }>().errors).toEqual([{ path: field, message }]);
    }
    expect(await rowsFrom(tracker.id)).toEqual([]);
  });
});

describe('who may send', () => {
  const send = (tracker: Created, authorization: string | undefined) =>
    ingest(tracker.ingest.url, {
      headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
      payload: JSON.stringify(owntracksLocation),
    });

  it('a wrong, missing or malformed token is 401 problem+json, and stores nothing', async () => {
    const tracker = await newTracker('owntracks');
    for (const authorization of [
      basic('jane', 'wrong'),
      basic('jane', `${tracker.ingest.token}x`),
      `Bearer ${tracker.ingest.token.slice(1)}`,
      'Basic bm9jb2xvbg==',
      `Digest ${tracker.ingest.token}`,
      undefined,
    ]) {
      const response = await send(tracker, authorization);
      expect(response.statusCode).toBe(401);
      expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(response.headers['www-authenticate']).toBe('Basic realm="waypost ingest", Bearer realm="waypost ingest"');
      expect(response.json()).toMatchObject({ status: 401, code: 'invalid_token' });
    }
    const query = await ingest(tracker.ingest.url, { query: '?token=nope', payload: '' });
    expect(query.statusCode).toBe(401);
    const twice = await ingest(tracker.ingest.url, {
      query: `?token=${tracker.ingest.token}&token=${tracker.ingest.token}`,
      payload: '',
    });
    expect(twice.statusCode).toBe(401);
    expect(await rowsFrom(tracker.id)).toEqual([]);
  });

  it("another service's token, even the same person's or another person's, is 401", async () => {
    const alicesTracker = await newTracker('owntracks');
    const alicesOther = await newTracker('owntracks');
    const bobsTracker = await newTracker('owntracks', bobs);
    expect((await send(alicesTracker, basic('x', alicesOther.ingest.token))).statusCode).toBe(401);
    expect((await send(alicesTracker, basic('x', bobsTracker.ingest.token))).statusCode).toBe(401);
    expect((await send(bobsTracker, basic('x', alicesTracker.ingest.token))).statusCode).toBe(401);
    expect(await rowsFrom(alicesTracker.id)).toEqual([]);
    expect(await rowsFrom(bobsTracker.id)).toEqual([]);
    // An OAuth access token is not an ingest token either.
    expect((await send(alicesTracker, `Bearer ${alices}`)).statusCode).toBe(401);
  });

  it('a disabled service is 403 and a deleted one 401; neither stores anything', async () => {
    const disabled = await newTracker('owntracks', alices, { enabled: false });
    const response = await send(disabled, basic('x', disabled.ingest.token));
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({ status: 403, code: 'service_disabled' });
    expect(await rowsFrom(disabled.id)).toEqual([]);

    const deleted = await newTracker('owntracks');
    expect((await api('DELETE', `/services/${deleted.id}`, alices)).statusCode).toBe(204);
    expect((await send(deleted, basic('x', deleted.ingest.token))).statusCode).toBe(401);
    expect(await rowsFrom(deleted.id)).toEqual([]);

    const unknown = await ingest('http://waypost.test/ingest/01J00000000000000000000000', {
      headers: { authorization: basic('x', deleted.ingest.token) },
      payload: '{}',
    });
    expect(unknown.statusCode).toBe(401);
  });
});

describe('concurrent senders (group commit)', () => {
  it('batches sent at once are each counted on their own (they may share one commit)', async () => {
    const tracker = await newTracker('gpslogger');
    const point = (i: number) => `lat=10.${i}&lon=20.${i}&timestamp=${1800000000 + i}`;
    // Four points, each sent twice, all at once.
    const responses = await Promise.all(
      [0, 1, 2, 3, 0, 1, 2, 3].map((i) =>
        ingest(tracker.ingest.url, { query: `?token=${tracker.ingest.token}`, payload: point(i) }),
      ),
    );
    const results = responses.map((r) => r.json<{ stored: number; duplicates: number }>());
    expect(results.reduce((sum, r) => sum + r.stored, 0)).toBe(4);
    expect(results.reduce((sum, r) => sum + r.duplicates, 0)).toBe(4);
    expect(await rowsFrom(tracker.id)).toHaveLength(4);
  });

  it('a batch the database refuses fails alone; the others of its commit are stored', async () => {
    const good = (time: number) => ({
      user_id: alice.id,
      id: `01GROUPCOMMIT${time}`.slice(0, 26),
      scope: 'private' as const,
      time,
      created_at: time,
      lat: 1,
      lon: 2,
      alt: null,
      accuracy: null,
      speed: null,
      heading: null,
      source: 'group-commit-test',
    });
    const bad = { ...good(3), lat: null as unknown as number };
    const [first, refused, last] = await Promise.allSettled([
      insertLocationsGrouped(t.database.db, [good(1)]),
      insertLocationsGrouped(t.database.db, [bad]),
      insertLocationsGrouped(t.database.db, [good(2)]),
    ]);
    expect(first).toEqual({ status: 'fulfilled', value: 1 });
    expect(refused?.status).toBe('rejected');
    expect(last).toEqual({ status: 'fulfilled', value: 1 });
    expect((await rowsFrom('group-commit-test')).map((row) => row.time)).toEqual([1, 2]);
  });
});

describe('no ingest body makes a 5xx', () => {
  it('whatever the type, media type or body', async () => {
    const trackers = await Promise.all(['owntracks', 'overland', 'gpslogger'].map((type) => newTracker(type)));
    const json = fc.jsonValue({ maxDepth: 4 });
    const feature = fc.record(
      {
        type: fc.constantFrom('Feature', 'Point', 5),
        geometry: fc.oneof(json, fc.record({ type: fc.constantFrom('Point', 'LineString'), coordinates: json })),
        properties: fc.oneof(json, fc.dictionary(fc.constantFrom('timestamp', 'speed', 'course', 'altitude'), json)),
      },
      { requiredKeys: [] },
    );
    const message = fc.dictionary(
      fc.constantFrom('_type', 'lat', 'lon', 'tst', 'acc', 'alt', 'vel', 'cog', 'batt', 'tid'),
      fc.oneof(json, fc.constant('location')),
    );
    const body = fc.oneof(
      fc.string(),
      json.map((value) => JSON.stringify(value) ?? ''),
      fc.array(message, { maxLength: 4 }).map((value) => JSON.stringify(value)),
      message.map((value) => JSON.stringify(value)),
      fc.record({ locations: fc.array(feature, { maxLength: 4 }) }).map((value) => JSON.stringify(value)),
      fc
        .dictionary(
          fc.constantFrom('lat', 'lon', 'latitude', 'time', 'timestamp', 'spd', 'spd_kph', 'dir', 'acc'),
          fc.string(),
        )
        .map((value) => new URLSearchParams(value).toString()),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...trackers),
        fc.constantFrom('application/json', 'application/x-www-form-urlencoded', 'text/plain', undefined),
        body,
        fc.string({ maxLength: 20 }),
        async (tracker, contentType, payload, query) => {
          const response = await ingest(tracker.ingest.url, {
            query: `?token=${tracker.ingest.token}&${encodeURIComponent(query)}=${encodeURIComponent(query)}`,
            headers: contentType ? { 'content-type': contentType } : {},
            payload,
          });
          expect(response.statusCode).toBeLessThan(500);
        },
      ),
      { numRuns: 300 },
    );
  });
});
