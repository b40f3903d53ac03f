// The public precision as an attacker tests it (docs/privacy.md): no public answer (status,
// body, any header, Link and ETag included) may depend on an exact public position finer than
// its published cell, nor on a private item.
//
// Two hidden exact positions inside one published cell take turns under the same items (the
// database row is moved, and the person's items_version put back, so the ETag may stay). An
// attacker binary-searches each edge of a box against every public output that takes a box or
// a cursor; at every probe both positions must give the very same answer, and each search must
// end on the published coordinate, never nearer the hidden one. Copies of pages are off
// (WAYPOST_PUBLIC_CACHE_MB=0), so every answer is built from the database.
import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestUser, type TestApp } from '../../test/helpers.ts';
import { insertItems } from '../../test/items.ts';
import { tokenFor } from '../../test/tokens.ts';
import { updateSettings } from '../settings/settings.logic.ts';
import { roundPoint } from '../privacy/precision.ts';

const PRECISION_M = 1000;
const cell = roundPoint(52.52, 13.405, PRECISION_M);
const latStep = PRECISION_M / 111_320;
const lonStep = latStep / Math.cos((cell.lat * Math.PI) / 180);
/** Two exact places near opposite corners of the published cell. */
const hidden = [
  { lat: cell.lat - 0.45 * latStep, lon: cell.lon - 0.45 * lonStep },
  { lat: cell.lat + 0.45 * latStep, lon: cell.lon + 0.45 * lonStep },
];

let t: TestApp;
let owner: Awaited<ReturnType<typeof createTestUser>>;
/** The owner's token for an app given no permission: it reads the owner's public collections. */
let appToken: string;
let viewsToken: string;
let target: { location: string; post: string };
let version: number;
let viewId: string;

beforeAll(async () => {
  t = await buildTestApp({ env: { WAYPOST_PUBLIC_CACHE_MB: '0' } });
  owner = await createTestUser(t.database, { username: 'hider' });
  await updateSettings(t.database.db, owner.id, { publicLocationPrecisionM: PRECISION_M });
  appToken = await tokenFor(t, owner, []);
  viewsToken = await tokenFor(t, owner, ['manage_views', 'get_views', 'get_private_scope']);
  const [location] = await insertItems(t.database, 'locations', owner.id, [{ time: 3000, ...hidden[0]! }]);
  const [post] = await insertItems(t.database, 'posts', owner.id, [{ time: 2500, ...hidden[0]! }]);
  // One more public point on each side, so that a page of one has a next page to name or not.
  await insertItems(t.database, 'locations', owner.id, [
    { time: 2000, lat: cell.lat + 0.1, lon: cell.lon + 0.1 },
    { time: 1000, lat: cell.lat - 0.1, lon: cell.lon - 0.1 },
  ]);
  target = { location: location!, post: post! };
  const row = await t.database.db
    .selectFrom('users')
    .select('items_version')
    .where('id', '=', owner.id)
    .executeTakeFirstOrThrow();
  version = Number(row.items_version);
  const view = await t.app.inject({
    method: 'POST',
    url: '/views',
    headers: { authorization: `Bearer ${viewsToken}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ name: 'around', kinds: ['locations', 'posts'], scope: 'public' }),
  });
  viewId = view.json<{ id: string }>().id;
});
afterAll(() => t.close());

it('the two hidden places are one published cell', () => {
  for (const place of hidden) expect(roundPoint(place.lat, place.lon, PRECISION_M)).toEqual(cell);
});

/** Moves the hidden location and post to `place`, leaving the version a page's ETag is made of. */
async function hideAt(place: { lat: number; lon: number }): Promise<void> {
  const db = t.database.db;
  for (const table of ['locations', 'posts'] as const) {
    const id = table === 'locations' ? target.location : target.post;
    await sql`update ${sql.table(table)} set lat = ${place.lat}, lon = ${place.lon} where id = ${id}`.execute(db);
  }
  await sql`update users set items_version = ${version} where id = ${owner.id}`.execute(db);
}

/**
 * The whole answer: status, every header and the body, but the request's own id and the clock
 * (`Date`, which turns with the second whatever the data).
 */
function whole(response: LightMyRequestResponse): string {
  const { 'x-request-id': _id, date: _date, ...headers } = response.headers;
  const sorted = Object.entries(headers).sort(([a], [b]) => (a < b ? -1 : 1));
  return JSON.stringify({ status: response.statusCode, headers: sorted, body: response.body });
}

type Box = [number, number, number, number];

interface Output {
  name: string;
  /** Done once per probe, before the two answers. */
  prepare?(box: Box): Promise<void>;
  /** The answer to a box, with the next page when the answer names one. */
  answer(box: Box): Promise<{ raw: string; state: string }>;
}

async function withNext(
  request: { url: string; headers?: Record<string, string> },
  state: (raw: string) => string,
): Promise<{ raw: string; state: string }> {
  const first = await t.app.inject({ method: 'GET', ...request });
  const link = first.headers.link;
  let raw = whole(first);
  if (typeof link === 'string') {
    const next = new URL(/<([^>]+)>/.exec(link)![1]!);
    raw += `\n${whole(await t.app.inject({ method: 'GET', url: next.pathname + next.search, headers: request.headers }))}`;
  }
  return { raw, state: state(raw) };
}

/** What does not name the box itself (nor the request, as the ETag does): the search compares these. */
const withoutBox = (raw: string) => raw.replace(/bbox=[^&>"]*/g, 'bbox=_').replace(/\["etag","[^\]]*\]/g, '');

const collection = (
  name: string,
  query: string,
  headers: () => Record<string, string> = () => ({}),
  path = '/public/hider',
): Output => ({
  name,
  answer: (box) =>
    withNext({ url: `/locations${path}?bbox=${box.join(',')}&count=1${query}`, headers: headers() }, withoutBox),
});

const outputs: Output[] = [
  collection('public collection, JSON', ''),
  collection('public collection, GeoJSON', '&format=geojson'),
  collection('public collection, GPX', '&format=gpx'),
  collection('public collection, GeoJSON by Accept', '', () => ({ accept: 'application/geo+json' })),
  collection(
    "the owner's public collection, to an app without permissions",
    '',
    () => ({ authorization: `Bearer ${appToken}` }),
    '/public',
  ),
  {
    name: 'public view',
    prepare: async (box) => {
      const changed = await t.app.inject({
        method: 'POST',
        url: `/views/${viewId}`,
        headers: { authorization: `Bearer ${viewsToken}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ filters: { bbox: box } }),
      });
      expect(changed.statusCode).toBe(200);
    },
    answer: async () =>
      // The view names its own box and when it changed: the search compares its items and Link.
      withNext({ url: `/views/${viewId}?count=1` }, (raw) =>
        withoutBox(raw).replace(/"filters\\?":\{[^}]*\}|"updated_at\\?":[0-9.]+|\["content-length","\d+"\]/g, ''),
      ),
  },
];

/** One probe: the same answer, whichever of the two places is the hidden one. */
async function probe(output: Output, box: Box): Promise<string> {
  await output.prepare?.(box);
  await hideAt(hidden[0]!);
  const first = await output.answer(box);
  await hideAt(hidden[1]!);
  const second = await output.answer(box);
  expect(second.raw, `${output.name}, bbox ${box.join(',')}`).toBe(first.raw);
  return first.state;
}

const EDGES = [
  { name: 'west', index: 0, published: cell.lon, step: lonStep, inside: -1 },
  { name: 'south', index: 1, published: cell.lat, step: latStep, inside: -1 },
  { name: 'east', index: 2, published: cell.lon, step: lonStep, inside: 1 },
  { name: 'north', index: 3, published: cell.lat, step: latStep, inside: 1 },
] as const;

describe('binary-searching a box edge finds the published cell, never the hidden place', () => {
  for (const output of outputs) {
    it(output.name, async () => {
      for (const edge of EDGES) {
        const boxAt = (value: number): Box => {
          const box: Box = [cell.lon - 0.2, cell.lat - 0.2, cell.lon + 0.2, cell.lat + 0.2];
          box[edge.index] = value;
          return box;
        };
        let inside = edge.published + edge.inside * 3 * edge.step;
        let outside = edge.published - edge.inside * 3 * edge.step;
        const shown = await probe(output, boxAt(inside));
        expect(await probe(output, boxAt(outside)), edge.name).not.toBe(shown);
        for (let round = 0; round < 20; round += 1) {
          const middle = (inside + outside) / 2;
          if ((await probe(output, boxAt(middle))) === shown) inside = middle;
          else outside = middle;
        }
        // The answer turns where the published point is, whichever exact place is hidden.
        expect(Math.abs(inside - edge.published), edge.name).toBeLessThan(1e-6);
        expect(Math.abs(outside - edge.published), edge.name).toBeLessThan(1e-6);
      }
    });
  }
});

describe('a private item never changes a public answer', () => {
  it('every public answer is the same, byte for byte, before and after private items are added', async () => {
    await hideAt(hidden[0]!);
    const region: Box = [cell.lon - 0.2, cell.lat - 0.2, cell.lon + 0.2, cell.lat + 0.2];
    const changed = await t.app.inject({
      method: 'POST',
      url: `/views/${viewId}`,
      headers: { authorization: `Bearer ${viewsToken}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ filters: { bbox: region } }),
    });
    expect(changed.statusCode).toBe(200);
    const box = `bbox=${region.join(',')}`;
    const anonymous = [
      ...['', '&format=geojson', '&format=gpx'].flatMap((format) => [
        `/locations/public/hider?count=1${format}`,
        `/locations/public/hider?count=1&${box}${format}`,
        `/locations/public/hider?${box}${format}`,
      ]),
      '/posts/public/hider?count=1',
      '/posts/public/hider?format=atom',
      '/posts/public/hider?format=jsonfeed',
      '/media/public/hider',
      '/users/hider',
      `/views/${viewId}?count=1`,
      `/views/${viewId}`,
      `/locations/id/${target.location}`,
      `/posts/id/${target.post}`,
    ];
    const asApp = [`/locations/public?count=1&${box}`, '/locations/public', '/posts/public', '/media/public'];
    const answers = async () => {
      const all: string[] = [];
      for (const url of anonymous) all.push((await withNext({ url }, withoutBox)).raw);
      for (const url of asApp) {
        all.push((await withNext({ url, headers: { authorization: `Bearer ${appToken}` } }, withoutBox)).raw);
      }
      return all;
    };
    const before = await answers();
    for (const answer of before) expect(answer.slice(0, 14)).toBe('{"status":200,');

    const writer = await tokenFor(t, owner, ['write_locations', 'create_post']);
    const send = (url: string, payload: unknown) =>
      t.app.inject({
        method: 'POST',
        url,
        headers: { authorization: `Bearer ${writer}`, 'content-type': 'application/json' },
        payload: JSON.stringify(payload),
      });
    // Newest of all, inside the box, on the hidden place's very cell, and between the public ones.
    const points = [
      { time: 10, ...hidden[1]!, scope: 'private' },
      { time: 3.5, lat: cell.lat, lon: cell.lon, scope: 'private' },
      { time: 1.5, lat: cell.lat + 0.05, lon: cell.lon - 0.05, scope: 'private' },
    ];
    expect((await send('/locations', points)).json()).toEqual({ stored: 3, duplicates: 0 });
    const [medium] = await insertItems(t.database, 'media', owner.id, [{ scope: 'private', time: 2600 }]);
    const post = await send('/posts', {
      text: 'only for me',
      groups: [],
      scope: 'private',
      media_ids: [medium],
      location: { lat: cell.lat, lon: cell.lon },
    });
    expect(post.statusCode).toBe(202);

    const after = await answers();
    for (const [index, answer] of after.entries()) {
      expect(answer, [...anonymous, ...asApp][index]).toBe(before[index]);
    }
  });
});
