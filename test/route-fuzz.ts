// A fuzzer over every route the app registers: random methods, path parameters, queries, bodies,
// content types and credentials (none, a stranger's, the owner's with every permission, a
// signed-in browser, made-up ones), against a database holding public and private items of two
// people. What it checks holds for every input: no 5xx, and no stack trace or internal path in a
// body. The test (routes.fuzz.test.ts) runs a few thousand requests on each database;
// `npm run fuzz` runs as many as it is asked for and prints what it saw.
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import sharp from 'sharp';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { PERMISSION_NAMES } from '../src/core/permissions.ts';
import { signInThroughForm } from './browser.ts';
import { createTestUser, type TestApp } from './helpers.ts';
import { insertItems } from './items.ts';
import { uploadMedium } from './media.ts';
import { tokenFor } from './tokens.ts';

export interface Route {
  method: FuzzRequest['method'];
  /** As registered: `/posts/id/:id`, `/locations/tiles/:z/:x/:y.mvt`, `/*`. */
  path: string;
}

/**
 * Every (method, path) the app answers, read from fastify's route tree: each line of
 * `printRoutes({ commonPrefix: false })` is a segment under its parent, with its methods.
 */
export function routesOf(app: FastifyInstance): Route[] {
  const routes: Route[] = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^((?:[│ ] {3})*)[├└]── (.*) \(([A-Z, ]+)\)$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    stack.length = depth;
    stack.push(match[2]!);
    const path = stack.join('');
    for (const method of match[3]!.split(', ')) routes.push({ method, path });
  }
  return routes;
}

/** What the fuzzer knows of the world it runs in: ids and credentials worth trying. */
export interface World {
  ids: string[];
  usernames: string[];
  /** Authorization or cookie headers, each a way of being someone (or no one). */
  credentials: Record<string, string>[];
}

/** Two people with public and private items of every kind, tokens, and a browser session. */
export async function makeWorld(t: TestApp): Promise<World> {
  const alice = await createTestUser(t.database);
  const bob = await createTestUser(t.database);
  const ids: string[] = [];
  const photo = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#3a6' } })
    .png()
    .toBuffer();
  for (const user of [alice, bob]) {
    for (const kind of ['posts', 'locations'] as const) {
      const seeded = await insertItems(t.database, kind, user.id, [
        { scope: 'public', lat: 52.52, lon: 13.4 },
        { scope: 'private', lat: 48.85, lon: 2.35 },
      ]);
      ids.push(...seeded);
    }
    // Media through the API, so their files exist as they would.
    const uploader = await tokenFor(t, user, ['upload_media']);
    for (const scope of ['public', 'private']) {
      const uploaded = await uploadMedium(t, uploader, photo, 'dot.png', 'image/png', { scope });
      if (uploaded.statusCode !== 201) throw new Error(`upload answered ${uploaded.statusCode}: ${uploaded.body}`);
      ids.push(uploaded.json<{ id: string }>().id);
    }
  }
  const everything = await tokenFor(t, alice, PERMISSION_NAMES);
  const nothing = await tokenFor(t, alice, []);
  const strangers = await tokenFor(t, bob, PERMISSION_NAMES);
  const { cookie, csrf } = await signInThroughForm(t.app, alice.username, alice.password);
  return {
    ids,
    usernames: [alice.username, bob.username],
    credentials: [
      {},
      { authorization: `Bearer ${everything}` },
      { authorization: `Bearer ${nothing}` },
      { authorization: `Bearer ${strangers}` },
      { authorization: `Bearer ${randomBytes(32).toString('base64url')}` },
      { authorization: 'Basic YWxpY2U6YWxpY2U=' },
      { cookie, 'x-csrf-token': csrf, 'sec-fetch-site': 'same-origin' },
      { cookie: 'wp_session=made-up; wp_csrf=made-up', 'x-csrf-token': 'made-up' },
    ],
  };
}

const QUERY_NAMES = [
  'count',
  'since_time',
  'until_time',
  'order',
  'cursor',
  'bbox',
  'format',
  'all',
  'zoom',
  'group_by',
  'scope',
  'kind',
  'q',
  'from',
  'until',
  'token',
  'redirect_uri',
  'client_id',
];

const BODY_KEYS = [
  'text',
  'groups',
  'scope',
  'media_ids',
  'location',
  'lat',
  'lon',
  'time',
  'name',
  'type',
  'config',
  'enabled',
  'caption',
  'kinds',
  'filters',
  'timezone',
  'privacy_zones',
  'public_location_precision_m',
  'locations',
  'username',
  'password',
  'csrf',
  '_type',
  'tst',
];

/** Strings that have broken parsers somewhere: empty, huge, control characters, traversal, numbers as text. */
const nastyString = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 24 }),
  fc.constantFrom(
    '',
    ' ',
    '0',
    '-1',
    '1e309',
    'NaN',
    'null',
    '[]',
    '{}',
    '..',
    '../../etc/passwd',
    '%00',
    '%zz',
    '\u0000',
    '\ud800',
    'a'.repeat(5000),
    '1,2,3,4',
    '-180,-90,180,90',
    '2024-02-30',
    '9999-12-31',
    '__proto__',
    'constructor',
  ),
);

/** Percent-encodings a client may send as they are, some of them malformed. */
const RAW_SEGMENTS = ['%zz', '%', '%00', '%C0%AF', '%2e%2e', '%E2%82', '%F0%9F%98%80'];

/** A path segment: a raw encoding from the list, or the parameter encoded (lone surrogates made whole). */
function segment(parameter: string): string {
  if (parameter.startsWith('raw:')) return parameter.slice(4);
  return encodeURIComponent(parameter.toWellFormed());
}

/** A path parameter: a known id or username, or something nasty. */
function parameter(world: World): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(...world.ids),
    fc.constantFrom(...world.usernames),
    nastyString,
    fc.nat().map(String),
    fc.constantFrom(...RAW_SEGMENTS.map((raw) => `raw:${raw}`)),
  );
}

const jsonBody = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.dictionary(fc.constantFrom(...BODY_KEYS), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 }),
);

/** A body with the content type it claims, or claims falsely. */
const body = fc.oneof(
  fc.constant<{ payload?: string | Buffer; headers?: Record<string, string> }>({}),
  jsonBody.map((value) => ({ payload: JSON.stringify(value), headers: { 'content-type': 'application/json' } })),
  fc.string({ maxLength: 40 }).map((text) => ({ payload: text, headers: { 'content-type': 'application/json' } })),
  fc.array(fc.tuple(fc.constantFrom(...BODY_KEYS), nastyString), { maxLength: 5 }).map((fields) => ({
    payload: new URLSearchParams(
      fields.map(([key, value]): [string, string] => [key, value.toWellFormed()]),
    ).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  })),
  fc.uint8Array({ maxLength: 64 }).map((bytes) => ({
    payload: Buffer.from(bytes),
    headers: { 'content-type': 'multipart/form-data; boundary=x' },
  })),
  fc
    .tuple(fc.constantFrom('text/plain', 'application/xml', 'image/png', ''), fc.string({ maxLength: 20 }))
    .map(([type, text]) => ({ payload: text, headers: type ? { 'content-type': type } : {} })),
);

const METHODS: FuzzRequest['method'][] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** What `inject` is given: always a method and a URL string. */
export interface FuzzRequest extends InjectOptions {
  method: NonNullable<InjectOptions['method']>;
  url: string;
}

/** One request: a route (or its path with another method), its parameters, query, body and credentials. */
export function requests(routes: Route[], world: World): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      route: fc.constantFrom(...routes),
      otherMethod: fc.oneof(
        { weight: 4, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.constantFrom(...METHODS) },
      ),
      params: fc.array(parameter(world), { minLength: 8, maxLength: 8 }),
      query: fc.array(fc.tuple(fc.constantFrom(...QUERY_NAMES), nastyString), { maxLength: 4 }),
      body,
      credentials: fc.constantFrom(...world.credentials),
      accept: fc.constantFrom(undefined, 'application/json', 'text/html', 'application/geo+json', '*/*', 'x/y'),
    })
    .map(({ route, otherMethod, params, query, body, credentials, accept }) => {
      let index = 0;
      const path = route.path
        .replace(/:[a-z_]+|\*/gi, () => segment(params[index++ % params.length]!))
        .replace(/\/\/+/g, '/')
        // The catch-all at the root (`*`) has no leading slash of its own.
        .replace(/^(?!\/)/, '/');
      const search = new URLSearchParams(query).toString();
      const method: FuzzRequest['method'] = otherMethod ?? route.method;
      return {
        method,
        url: search ? `${path}?${search}` : path,
        ...(body.payload !== undefined ? { payload: body.payload } : {}),
        headers: { ...credentials, ...body.headers, ...(accept ? { accept } : {}) },
      };
    });
}

/** What must hold for every answer: below 500, and no stack trace or file path of the server. */
export function problemIn(response: { statusCode: number; body: string }): string | undefined {
  if (response.statusCode >= 500) return `status ${response.statusCode}`;
  if (/\n\s+at .+\(|node_modules|\/src\/[a-z-]+\/[a-z.-]+\.ts/.test(response.body)) return 'an internal trace or path';
  return undefined;
}
