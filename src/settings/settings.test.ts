// GET/POST /settings through HTTP with real tokens: the round trip, partial changes, every
// validation error, and the defaults reaching items created afterwards through their own
// endpoints (POST /posts, /media, /locations) and the profile reaching GET /users/<username>.
import fc from 'fast-check';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestUser, type TestApp } from '../../test/helpers.ts';
import {
  byClass,
  expectAnswer,
  invalid,
  notAnObject,
  notAString,
  refused,
  unknownField,
  type InputClass,
} from '../../test/fuzz.ts';
import { tokenFor } from '../../test/tokens.ts';

let t: TestApp;
let user: Awaited<ReturnType<typeof createTestUser>>;
let reader: string;
let writer: string;

beforeAll(async () => {
  t = await buildTestApp();
  user = await createTestUser(t.database, { username: 'setter', displayName: 'Set Ter', bio: 'Before.' });
  reader = await tokenFor(t, user, ['get_settings']);
  writer = await tokenFor(t, user, ['update_settings']);
});
afterAll(() => t.close());

const auth = (token: string | null) => (token ? { authorization: `Bearer ${token}` } : {});
const read = (token: string | null = reader) => t.app.inject({ method: 'GET', url: '/settings', headers: auth(token) });
const change = (body: unknown, token: string | null = writer) =>
  t.app.inject({ method: 'POST', url: '/settings', headers: auth(token), payload: body as object });

const DEFAULTS = {
  default_scopes: { posts: 'public', media: 'private', locations: 'private' },
  timezone: 'UTC',
  public_location_precision_m: 1000,
  privacy_zones: [],
  display_name: 'Set Ter',
  bio: 'Before.',
};

describe('GET /settings', () => {
  it('shows the defaults before anything was changed', async () => {
    const response = await read();
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual(DEFAULTS);
  });

  it('needs a token with get_settings', async () => {
    expect((await read(null)).statusCode).toBe(401);
    const lacking = await read(writer);
    expect(lacking.statusCode).toBe(401);
    expect(lacking.headers['www-authenticate']).toBe(
      'Bearer realm="waypost", error="insufficient_scope", scope="get_settings"',
    );
  });
});

describe('POST /settings', () => {
  it('needs a token with update_settings', async () => {
    expect((await change({ bio: 'x' }, null)).statusCode).toBe(401);
    const lacking = await change({ bio: 'x' }, reader);
    expect(lacking.statusCode).toBe(401);
    expect(lacking.headers['www-authenticate']).toContain('scope="update_settings"');
  });

  it('round trip: every field changed comes back, from POST and from GET', async () => {
    const all = {
      default_scopes: { posts: 'private', media: 'public', locations: 'public' },
      timezone: 'Europe/Berlin',
      public_location_precision_m: 0,
      privacy_zones: [{ name: 'Home', lat: 52.5, lon: 13.4, radius_m: 200 }],
      display_name: 'Everything',
      bio: 'All of it.',
    };
    const response = await change(all);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual(all);
    expect((await read()).json()).toEqual(all);
    expect((await change(DEFAULTS)).json()).toEqual(DEFAULTS);
  });

  it('partial change: only what is sent changes, the whole settings come back', async () => {
    const one = await change({ default_scopes: { media: 'public' } });
    expect(one.statusCode).toBe(200);
    expect(one.json()).toEqual({ ...DEFAULTS, default_scopes: { ...DEFAULTS.default_scopes, media: 'public' } });
    const two = await change({ timezone: 'America/New_York', display_name: '  Trimmed  ' });
    expect(two.json()).toEqual({
      ...DEFAULTS,
      default_scopes: { ...DEFAULTS.default_scopes, media: 'public' },
      timezone: 'America/New_York',
      display_name: 'Trimmed',
    });
    const none = await change({});
    expect(none.json()).toEqual(two.json());
    expect((await read()).json()).toEqual(two.json());
    await change(DEFAULTS);
  });

  it.each([
    { body: { colour: 'blue' }, path: 'body/colour', message: undefined },
    { body: { default_scopes: { posts: 'friends' } }, path: 'body/default_scopes/posts', message: undefined },
    {
      body: { default_scopes: { comments: 'public' } },
      path: 'body/default_scopes/comments',
      message: undefined,
    },
    { body: { default_scopes: 'public' }, path: 'body/default_scopes', message: undefined },
    { body: { timezone: 'Mars/Olympus_Mons' }, path: 'body/timezone', message: 'is not an IANA time zone name' },
    { body: { timezone: '' }, path: 'body/timezone', message: undefined },
    { body: { timezone: 42 }, path: 'body/timezone', message: undefined },
    { body: { public_location_precision_m: -1 }, path: 'body/public_location_precision_m', message: undefined },
    { body: { public_location_precision_m: 100_001 }, path: 'body/public_location_precision_m', message: undefined },
    { body: { public_location_precision_m: 2.5 }, path: 'body/public_location_precision_m', message: undefined },
    { body: { public_location_precision_m: '100' }, path: 'body/public_location_precision_m', message: undefined },
    { body: { bio: 42 }, path: 'body/bio', message: undefined },
    { body: { display_name: '   ' }, path: 'body/display_name', message: 'must not be blank' },
    { body: { display_name: 'x'.repeat(101) }, path: 'body/display_name', message: undefined },
    { body: { display_name: null }, path: 'body/display_name', message: undefined },
    { body: { bio: 'x'.repeat(2001) }, path: 'body/bio', message: undefined },
  ])('400 naming $path (case %#), and nothing changes', async ({ body, path, message }) => {
    const response = await change(body);
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    const problem = response.json<{ errors: { path: string; message: string }[] }>();
    expect(problem).toMatchObject({ status: 400 });
    expect(problem.errors.map((e) => e.path)).toContain(path);
    if (message) expect(problem.errors).toContainEqual({ path, message });
    expect((await read()).json()).toEqual(DEFAULTS);
  });

  it('400 names every bad field at once; a good field beside them is not applied', async () => {
    const response = await change({ timezone: 'Nowhere/Special', display_name: ' ', bio: 'kept?' });
    expect(response.statusCode).toBe(400);
    expect(response.json<{ errors: unknown[] }>().errors).toEqual([
      { path: 'body/timezone', message: 'is not an IANA time zone name' },
      { path: 'body/display_name', message: 'must not be blank' },
    ]);
    expect((await read()).json()).toEqual(DEFAULTS);
  });

  it('400 for a body that is not a JSON object', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/settings',
      headers: { ...auth(writer), 'content-type': 'application/json' },
      payload: '{"bio":',
    });
    expect(response.statusCode).toBe(400);
    expect((await change(['bio'])).statusCode).toBe(400);
  });
});

describe('what the settings change', () => {
  it('display_name and bio show in GET /users/<username>', async () => {
    await change({ display_name: 'Public Me', bio: 'Hello, world.' });
    const profile = await t.app.inject({ method: 'GET', url: '/users/setter' });
    expect(profile.json()).toMatchObject({ username: 'setter', display_name: 'Public Me', bio: 'Hello, world.' });
    await change({ display_name: DEFAULTS.display_name, bio: DEFAULTS.bio });
  });

  it('one user changing settings leaves another alone', async () => {
    const other = await createTestUser(t.database, { username: 'bystander', displayName: 'By' });
    await change({ timezone: 'Asia/Tokyo', default_scopes: { posts: 'private' } });
    const theirs = await read(await tokenFor(t, other, ['get_settings']));
    expect(theirs.json()).toEqual({ ...DEFAULTS, display_name: 'By', bio: '' });
    await change(DEFAULTS);
  });

  it('default scopes apply to items created afterwards, through their own endpoints', async () => {
    const maker = await createTestUser(t.database);
    const token = await tokenFor(t, maker, [
      'update_settings',
      'create_post',
      'upload_media',
      'write_locations',
      'get_private_scope',
    ]);
    let time = 1_700_000_000;
    let shade = 0;

    /** Creates one post, one medium and one location through the API; returns the scope each got. */
    async function createAll(): Promise<Record<'posts' | 'media' | 'locations', string>> {
      const post = await t.app.inject({
        method: 'POST',
        url: '/posts',
        headers: auth(token),
        payload: { text: 'hello', groups: [] },
      });
      expect(post.statusCode).toBe(202);
      shade += 1; // a new image each time, not the same bytes again
      const image = await sharp({ create: { width: 2, height: 2, channels: 3, background: { r: shade, g: 0, b: 0 } } })
        .png()
        .toBuffer();
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(image)], { type: 'image/png' }), 'dot.png');
      const encoded = new Request('http://localhost/', { method: 'POST', body: form });
      const medium = await t.app.inject({
        method: 'POST',
        url: '/media',
        headers: { ...auth(token), 'content-type': encoded.headers.get('content-type')! },
        payload: Buffer.from(await encoded.arrayBuffer()),
      });
      expect(medium.statusCode, medium.body).toBe(201);
      time += 1;
      const location = await t.app.inject({
        method: 'POST',
        url: '/locations',
        headers: auth(token),
        payload: [{ time, lat: 52.5, lon: 13.4 }],
      });
      expect(location.json()).toEqual({ stored: 1, duplicates: 0 });
      // POST /locations answers with counts, not ids: find the point by its time in both collections.
      const found: string[] = [];
      for (const scope of ['public', 'private']) {
        const url = `/locations/${scope}?since_time=${time}&until_time=${time + 1}`;
        const points = (await t.app.inject({ method: 'GET', url, headers: auth(token) })).json<unknown[]>();
        if (points.length > 0) found.push(scope);
      }
      expect(found).toHaveLength(1);
      return {
        posts: post.json<{ scope: string }>().scope,
        media: medium.json<{ scope: string }>().scope,
        locations: found[0]!,
      };
    }

    expect(await createAll()).toEqual({ posts: 'public', media: 'private', locations: 'private' });
    const changed = await t.app.inject({
      method: 'POST',
      url: '/settings',
      headers: auth(token),
      payload: { default_scopes: { posts: 'private', media: 'public', locations: 'public' } },
    });
    expect(changed.statusCode).toBe(200);
    expect(await createAll()).toEqual({ posts: 'private', media: 'public', locations: 'public' });
    // A scope named in the request still wins over the default.
    const named = await t.app.inject({
      method: 'POST',
      url: '/posts',
      headers: auth(token),
      payload: { text: 'named', groups: [], scope: 'public' },
    });
    expect(named.json()).toMatchObject({ scope: 'public' });
  });
});

describe('no input makes a 5xx', () => {
  it('every class of body of POST /settings gets its exact answer', async () => {
    const other = await createTestUser(t.database);
    const token = await tokenFor(t, other, ['update_settings']);
    const KNOWN = ['default_scopes', 'timezone', 'public_location_precision_m', 'display_name', 'bio'];
    const STRINGS = ['timezone', 'display_name', 'bio'];
    type Body = unknown;
    const classes: InputClass<Body>[] = [
      { name: 'not an object', inputs: notAnObject, answer: () => invalid(['body', 'must be object']) },
      {
        name: 'an unknown field',
        inputs: unknownField(KNOWN).map((name) => ({ [name]: 'x' })),
        answer: (input) => invalid([`body/${Object.keys(input as object)[0]!}`, 'is not a known field']),
      },
      {
        name: 'a text field that is not a string',
        inputs: fc.tuple(fc.constantFrom(...STRINGS), notAString).map(([name, value]) => ({ [name]: value })),
        answer: (input) => invalid([`body/${Object.keys(input as object)[0]!}`, 'must be string']),
      },
      {
        name: 'a precision that is not a whole number',
        inputs: fc
          .oneof(
            fc.double({ min: 0.01, max: 99_999, noNaN: true }).filter((n) => !Number.isInteger(n)),
            fc.stringMatching(/^[a-z]{1,8}$/),
          )
          .map((value) => ({ public_location_precision_m: value })),
        answer: () => invalid(['body/public_location_precision_m', 'must be integer']),
      },
      {
        name: 'a precision over 100 km',
        inputs: fc.integer({ min: 100_001 }).map((value) => ({ public_location_precision_m: value })),
        answer: () => invalid(['body/public_location_precision_m', 'must be <= 100000']),
      },
      {
        name: 'a time zone that does not exist',
        inputs: fc.stringMatching(/^[A-Za-z]{3,12}$/).map((name) => ({ timezone: `Nowhere/${name}` })),
        answer: () =>
          refused('The settings are invalid: body/timezone is not an IANA time zone name.', [
            { path: 'body/timezone', message: 'is not an IANA time zone name' },
          ]),
      },
      {
        name: 'a valid precision and bio',
        inputs: fc.record({
          public_location_precision_m: fc.integer({ min: 0, max: 100_000 }),
          bio: fc.string({ maxLength: 100 }),
        }),
        answer: (input) => ({ status: 200, check: (body) => expect(body).toMatchObject(input as object) }),
      },
    ];
    await fc.assert(
      fc.asyncProperty(byClass(classes), async ({ name, input, answer }) => {
        const response = await t.app.inject({
          method: 'POST',
          url: '/settings',
          headers: { ...auth(token), 'content-type': 'application/json' },
          payload: JSON.stringify(input),
        });
        expectAnswer(name, input, response, answer);
      }),
      { numRuns: 200 },
    );
  });
});
