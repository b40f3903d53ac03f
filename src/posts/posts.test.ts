// POST /posts with `groups: []`, and public posts as Atom and JSON Feed, read back by a feed
// parser.
import { extractFromJson, extractFromXml } from '@extractus/feed-extractor';
import fc from 'fast-check';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, countRows, createTestUser, type TestApp } from '../../test/helpers.ts';
import { insertItems } from '../../test/items.ts';
import {
  blank,
  byClass,
  expectAnswer,
  invalid,
  notAnObject,
  notAString,
  plainJsonValue,
  refused,
  unknownField,
  type InputClass,
} from '../../test/fuzz.ts';
import { tokenFor } from '../../test/tokens.ts';
import { updateSettings } from '../settings/settings.logic.ts';

const anyNumber: unknown = expect.any(Number);
const ulid: unknown = expect.stringMatching(/^[0-9A-Z]{26}$/);

let t: TestApp;
let user: Awaited<ReturnType<typeof createTestUser>>;
let writer: string;
let reader: string;

beforeAll(async () => {
  t = await buildTestApp();
  user = await createTestUser(t.database, { username: 'writer' });
  writer = await tokenFor(t, user, ['create_post']);
  reader = await tokenFor(t, user, ['get_private_scope']);
});
afterAll(() => t.close());

const post = (payload: unknown, token = writer, contentType = 'application/json') =>
  t.app.inject({
    method: 'POST',
    url: '/posts',
    headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });

describe('POST /posts', () => {
  it('202, Location and the post object; stored in the own collection, delivered nowhere', async () => {
    const response = await post({ text: '  Hello, world.  ', groups: [], location: { lat: 52.52, lon: 13.405 } });
    expect(response.statusCode).toBe(202);
    const body = response.json<{ id: string; time: number; created_at: number }>();
    expect(response.headers.location).toBe(`/posts/id/${body.id}`);
    expect(body).toEqual({
      id: ulid,
      username: 'writer',
      text: 'Hello, world.',
      scope: 'public',
      time: body.created_at,
      created_at: anyNumber,
      media_ids: [],
      location: { lat: 52.52, lon: 13.405 },
      source: null,
      source_url: null,
      deliveries: [],
    });
    const read = await t.app.inject({ method: 'GET', url: `/posts/id/${body.id}` });
    expect(read.statusCode).toBe(200);
    const { deliveries: _d, location: _l, ...shared } = body as unknown as Record<string, unknown>;
    expect(read.json()).toMatchObject(shared);
    // Public: the location at the owner's precision (1000 m by default), not the exact one.
    expect(read.json<{ location: { lat: number } }>().location.lat).not.toBe(52.52);
  });

  it("takes the scope from the body, else from the owner's settings", async () => {
    const explicit = await post({ text: 'secret', groups: [], scope: 'private' });
    expect(explicit.json()).toMatchObject({ scope: 'private' });
    await updateSettings(t.database.db, user.id, { defaultScopes: { posts: 'private' } });
    expect((await post({ text: 'quiet', groups: [] })).json()).toMatchObject({ scope: 'private' });
    await updateSettings(t.database.db, user.id, { defaultScopes: { posts: 'public' } });
    const mine = await t.app.inject({
      method: 'GET',
      url: '/posts/private',
      headers: { authorization: `Bearer ${reader}` },
    });
    expect(mine.json<{ text: string }[]>().map((p) => p.text)).toEqual(['quiet', 'secret']);
  });

  it('400 with the reason for everything invalid, and nothing stored', async () => {
    const before = await countRows(t.database, 'posts');
    const cases: [unknown, string][] = [
      [{ text: '   ', groups: [] }, 'body/text'],
      [{ text: 'x'.repeat(5001), groups: [] }, 'body/text'],
      [{ text: 'hi' }, 'body/groups'],
      [{ text: 'hi', groups: ['g1'] }, 'body/groups/0'],
      [{ text: 'hi', groups: ['a', 'a'] }, 'body/groups'],
      [{ text: 'hi', groups: 'all' }, 'body/groups'],
      [{ text: 'hi', groups: [7] }, 'body/groups/0'],
      [{ text: ['hi'], groups: [] }, 'body/text'],
      [{ text: 42, groups: [] }, 'body/text'],
      [{ text: 'hi', groups: [], extra: true }, 'body/extra'],
      [{ text: 'hi', groups: [], scope: 'friends' }, 'body/scope'],
      [{ text: 'hi', groups: [], media_ids: ['01ARZ3NDEKTSV4RRFFQ69G5FAV'] }, 'body/media_ids/0'],
      [{ text: 'hi', groups: [], location: { lat: 100, lon: 0 } }, 'body/location/lat'],
      [[], 'body'],
    ];
    for (const [body, path] of cases) {
      const response = await post(body);
      expect(response.statusCode, JSON.stringify(body).slice(0, 60)).toBe(400);
      const problem = response.json<{ errors?: { path: string }[]; detail: string }>();
      expect(
        problem.errors?.map((e) => e.path),
        JSON.stringify(body).slice(0, 60),
      ).toContain(path);
    }
    expect((await post({ text: 'hi', groups: ['g1'] })).json()).toMatchObject({
      errors: [{ path: 'body/groups/0', message: 'unknown group' }],
    });
    expect((await post('{"text": "hi", ')).statusCode).toBe(400);
    expect((await post('text=hi', writer, 'application/x-www-form-urlencoded')).statusCode).toBeGreaterThanOrEqual(400);
    expect(await countRows(t.database, 'posts')).toBe(before);
  });

  it("5000 characters is the limit, counted as characters after trimming; the caller's own media attach", async () => {
    expect((await post({ text: `  ${'é'.repeat(5000)}  `, groups: [] })).statusCode).toBe(202);
    expect((await post({ text: '😀'.repeat(5000), groups: [] })).statusCode).toBe(202);
    const [mine] = await insertItems(t.database, 'media', user.id, [{}]);
    const other = await createTestUser(t.database);
    const [theirs] = await insertItems(t.database, 'media', other.id, [{}]);
    expect((await post({ text: 'photo', groups: [], media_ids: [mine] })).json()).toMatchObject({ media_ids: [mine] });
    expect((await post({ text: 'photo', groups: [], media_ids: [theirs] })).statusCode).toBe(400);
  });

  it('401 without create_post (the specification, docs/api.md), with or without a token', async () => {
    const lacking = await post({ text: 'hi', groups: [] }, reader);
    expect(lacking.statusCode).toBe(401);
    expect(lacking.headers['www-authenticate']).toBe(
      'Bearer realm="waypost", error="insufficient_scope", scope="create_post"',
    );
    const anonymous = await t.app.inject({ method: 'POST', url: '/posts', payload: { text: 'hi', groups: [] } });
    expect(anonymous.statusCode).toBe(401);
  });

  it('every class of body gets its exact answer, and none a 5xx', async () => {
    const KNOWN = ['text', 'groups', 'scope', 'media_ids', 'location'];
    const text = fc.string({ minLength: 1, maxLength: 200 }).filter((s) => s.trim().length > 0);
    const tooLong = fc.integer({ min: 5001, max: 5100 }).map((n) => 'x'.repeat(n));
    const postInvalid = (path: string, message: string) =>
      refused(`The post is invalid: ${path} ${message}.`, [{ path, message }]);
    const classes: InputClass<unknown>[] = [
      { name: 'not an object', inputs: notAnObject, answer: () => invalid(['body', 'must be object']) },
      {
        name: 'no text',
        inputs: fc.constant({ groups: [] }),
        answer: () => invalid(['body/text', 'is required']),
      },
      {
        name: 'no groups',
        inputs: text.map((t) => ({ text: t })),
        answer: () => invalid(['body/groups', 'is required']),
      },
      {
        name: 'text not a string',
        inputs: notAString.map((t) => ({ text: t, groups: [] })),
        answer: () => invalid(['body/text', 'must be string']),
      },
      {
        name: 'groups not an array',
        inputs: fc.oneof(fc.string(), fc.integer(), fc.constant({})).map((g) => ({ text: 'hi', groups: g })),
        answer: () => invalid(['body/groups', 'must be array']),
      },
      {
        name: 'an unknown field',
        inputs: fc.tuple(unknownField(KNOWN), plainJsonValue(1)),
        answer: (input) => invalid([`body/${(input as [string, unknown])[0]}`, 'is not a known field']),
      },
      {
        name: 'text blank or over 5000 characters after trimming',
        inputs: fc.oneof(blank, tooLong).map((t) => ({ text: t, groups: [] })),
        answer: () => postInvalid('body/text', 'must be 1 to 5000 characters after trimming'),
      },
      {
        name: 'a group that does not exist',
        inputs: fc.string({ minLength: 1, maxLength: 30 }).map((g) => ({ text: 'hi', groups: [g] })),
        answer: () => postInvalid('body/groups/0', 'unknown group'),
      },
      {
        name: 'a medium that does not exist',
        inputs: fc.string({ minLength: 1, maxLength: 30 }).map((m) => ({ text: 'hi', groups: [], media_ids: [m] })),
        answer: () => postInvalid('body/media_ids/0', 'unknown medium'),
      },
      {
        name: 'a valid post',
        inputs: text.map((t) => ({ text: t, groups: [] })),
        answer: (input) => ({
          status: 202,
          check: (body) =>
            expect(body).toMatchObject({
              text: (input as { text: string }).text.trim(),
              media_ids: [],
              location: null,
            }),
        }),
      },
    ];
    // The unknown-field class carries its name and value; the body is a valid post plus that field.
    const bodyOf = (name: string, input: unknown) =>
      name === 'an unknown field'
        ? { text: 'hi', groups: [], [(input as [string, unknown])[0]]: (input as [string, unknown])[1] }
        : input;
    await fc.assert(
      fc.asyncProperty(byClass(classes), async ({ name, input, answer }) => {
        expectAnswer(name, input, await post(JSON.stringify(bodyOf(name, input))), answer);
      }),
      { numRuns: 300 },
    );
  });
});

describe('feeds of public posts', () => {
  let feeder: Awaited<ReturnType<typeof createTestUser>>;
  beforeAll(async () => {
    feeder = await createTestUser(t.database, { username: 'feeder' });
    await t.database.db
      .insertInto('posts')
      .values([
        {
          user_id: feeder.id,
          id: '01HZ0000000000000000000001',
          scope: 'public',
          time: 1_714_557_600_000,
          created_at: 1,
          text: 'First post\nwith two lines & <markup>',
          media_ids: '[]',
          lat: null,
          lon: null,
          source: null,
        },
        {
          user_id: feeder.id,
          id: '01HZ0000000000000000000002',
          scope: 'public',
          time: 1_714_644_000_000,
          created_at: 1,
          text: 'Second post',
          media_ids: '[]',
          lat: null,
          lon: null,
          source: null,
        },
        {
          user_id: feeder.id,
          id: '01HZ0000000000000000000003',
          scope: 'private',
          time: 1_714_700_000_000,
          created_at: 1,
          text: 'Private',
          media_ids: '[]',
          lat: null,
          lon: null,
          source: null,
        },
      ])
      .execute();
  });

  it('Atom (format=atom or Accept), parsed by a feed reader: public posts only, newest first', async () => {
    for (const request of [
      { url: '/posts/public/feeder?format=atom', headers: {} },
      { url: '/posts/public/feeder', headers: { accept: 'application/atom+xml' } },
    ]) {
      const response = await t.app.inject({ method: 'GET', ...request });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('application/atom+xml; charset=utf-8');
      const xml = new XMLParser({ ignoreAttributes: false }).parse(response.body) as { feed: Record<string, unknown> };
      expect(xml.feed['@_xmlns']).toBe('http://www.w3.org/2005/Atom');
      const feed = extractFromXml(response.body, { normalization: true });
      expect(feed.title).toBe('feeder on Waypost');
      expect(feed.entries?.map((e) => [e.link, e.title, e.published])).toEqual([
        ['http://waypost.test/posts/id/01HZ0000000000000000000002', 'Second post', '2024-05-02T10:00:00.000Z'],
        ['http://waypost.test/posts/id/01HZ0000000000000000000001', 'First post', '2024-05-01T10:00:00.000Z'],
      ]);
    }
  });

  it('JSON Feed (format=jsonfeed), parsed by a feed reader, discoverable from the profile', async () => {
    const profile = (await t.app.inject({ method: 'GET', url: '/users/feeder' })).json<{
      feeds: { json_feed: string };
    }>();
    const url = new URL(profile.feeds.json_feed);
    const response = await t.app.inject({ method: 'GET', url: url.pathname + url.search });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/feed+json');
    const raw = response.json<{ version: string; items: { content_html: string }[] }>();
    expect(raw.version).toMatch(/^https:\/\/jsonfeed\.org\/version\/1/);
    expect(raw.items[1]?.content_html).toBe('First post<br>\nwith two lines &amp; &lt;markup&gt;');
    const feed = extractFromJson(raw, { normalization: true });
    expect(feed.entries?.map((e) => e.link)).toEqual([
      'http://waypost.test/posts/id/01HZ0000000000000000000002',
      'http://waypost.test/posts/id/01HZ0000000000000000000001',
    ]);
  });

  it('post text arrives in every feed field as text, never as markup (also text a feed import brought in)', async () => {
    const hostile = await createTestUser(t.database, { username: 'hostile' });
    const texts = [
      '<img src=x onerror=alert(1)> & <b>bold</b>\nsecond <script>alert(2)</script>',
      'closes ]]><img src=x onerror=alert(3)> twice ]]><b>x</b> &lt;i&gt; stays text',
    ];
    await t.database.db
      .insertInto('posts')
      .values(
        texts.map((text, i) => ({
          user_id: hostile.id,
          id: `01HZ000000000000000000000${i + 4}`,
          scope: 'public' as const,
          time: 1_714_557_600_000 + i,
          created_at: 1,
          text,
          media_ids: '[]',
          lat: null,
          lon: null,
          source: i === 1 ? 'https://feeds.example/entry' : null,
        })),
      )
      .execute();
    // What a feed reader shows for an Atom text construct (RFC 4287 3.1): `text` as is; `html`
    // after decoding its character references, which must leave no element behind.
    const decode = (html: string) => html.replace(/&(lt|gt|quot|#39|amp);/g, (_, name: string) => DECODED[name]!);
    const DECODED: Record<string, string> = { lt: '<', gt: '>', quot: '"', '#39': "'", amp: '&' };
    const shown = (construct: { '#text': string; '@_type': string }, html = (s: string) => s) => {
      if (construct['@_type'] === 'text') return construct['#text'];
      expect(construct['@_type']).toBe('html');
      expect(html(construct['#text'])).not.toMatch(/[<>]/);
      return decode(html(construct['#text']));
    };
    const atom = await t.app.inject({ method: 'GET', url: '/posts/public/hostile?format=atom' });
    expect(atom.statusCode).toBe(200);
    const xml = new XMLParser({ ignoreAttributes: false, parseTagValue: false, trimValues: false }).parse(
      atom.body,
    ) as { feed: { title: string; entry: { title: never; content: never }[] } };
    expect(xml.feed.title).toBe('hostile on Waypost');
    expect(xml.feed.entry.map((entry) => shown(entry.title))).toEqual([
      'closes ]]><img src=x onerror=alert(3)> twice ]]><b>x</b> &lt;i&gt; stays text',
      '<img src=x onerror=alert(1)> & <b>bold</b>',
    ]);
    expect(xml.feed.entry.map((entry) => shown(entry.content, (s) => s.replaceAll('<br>\n', '\n')))).toEqual([
      texts[1],
      texts[0],
    ]);
    const json = await t.app.inject({ method: 'GET', url: '/posts/public/hostile?format=jsonfeed' });
    const items = json.json<{ items: { title: string; content_html: string }[] }>().items;
    // JSON Feed 1.1: `title` is plain text; `content_html` is HTML.
    expect(items.map((item) => item.title)).toEqual([
      'closes ]]><img src=x onerror=alert(3)> twice ]]><b>x</b> &lt;i&gt; stays text',
      '<img src=x onerror=alert(1)> & <b>bold</b>',
    ]);
    expect(items.map((item) => decode(item.content_html.replaceAll('<br>\n', '\n')))).toEqual([texts[1], texts[0]]);
  });

  it('a feed page follows the collection parameters and announces the next page', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/posts/public/feeder?format=atom&count=1' });
    expect(extractFromXml(response.body).entries).toHaveLength(1);
    expect(response.headers.link).toMatch(/format=atom/);
    expect(response.headers.link).toMatch(/rel="next"$/);
  });
});

describe('private media and public posts (docs/privacy.md)', () => {
  let owner: Awaited<ReturnType<typeof createTestUser>>;
  let token: string;
  let views: string;
  beforeAll(async () => {
    owner = await createTestUser(t.database, { username: 'photographer' });
    token = await tokenFor(t, owner, ['create_post', 'get_private_scope']);
    views = await tokenFor(t, owner, ['manage_views', 'get_views', 'get_private_scope']);
  });
  const send = (payload: unknown) =>
    t.app.inject({
      method: 'POST',
      url: '/posts',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: JSON.stringify(payload),
    });

  it('a private medium cannot be attached to a public post (400 naming media_ids); to a private post it can', async () => {
    const [shown, hidden] = await insertItems(t.database, 'media', owner.id, [
      { scope: 'public' },
      { scope: 'private' },
    ]);
    const before = await countRows(t.database, 'posts');
    for (const scope of ['public', undefined]) {
      const refused = await send({ text: 'holiday', groups: [], scope, media_ids: [shown, hidden] });
      expect(refused.statusCode).toBe(400);
      expect(refused.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(refused.json()).toEqual({
        type: 'urn:waypost:problem:invalid_request',
        code: 'invalid_request',
        title: 'Bad Request',
        status: 400,
        detail: 'The post is invalid: body/media_ids/1 is private; a public post can only show public media.',
        errors: [{ path: 'body/media_ids/1', message: 'is private; a public post can only show public media' }],
      });
    }
    expect(await countRows(t.database, 'posts')).toBe(before);
    const quiet = await send({ text: 'for me', groups: [], scope: 'private', media_ids: [shown, hidden] });
    expect(quiet.statusCode).toBe(202);
    expect(quiet.json()).toMatchObject({ scope: 'private', media_ids: [shown, hidden] });
  });

  it('a public post never shows a private medium: JSON, by id, Atom, JSON Feed and views', async () => {
    const [stays, turns, gone] = await insertItems(t.database, 'media', owner.id, [{}, {}, {}]);
    const created = await send({ text: 'three photos', groups: [], scope: 'public', media_ids: [stays, turns, gone] });
    expect(created.statusCode).toBe(202);
    const id = created.json<{ id: string }>().id;
    // Made private after the post (and one deleted), or the post made public later: the same.
    await t.database.db.updateTable('media').set({ scope: 'private' }).where('id', '=', turns!).execute();
    await t.database.db.deleteFrom('media').where('id', '=', gone!).execute();
    const later = await send({ text: 'was private', groups: [], scope: 'private', media_ids: [stays, turns] });
    const laterId = later.json<{ id: string }>().id;
    await t.database.db.updateTable('posts').set({ scope: 'public' }).where('id', '=', laterId).execute();

    const get = (url: string, bearer?: string) =>
      t.app.inject({ method: 'GET', url, headers: bearer ? { authorization: `Bearer ${bearer}` } : {} });
    const listed = (await get('/posts/public/photographer')).json<{ id: string; media_ids: string[] }[]>();
    expect(listed.map((p) => [p.id, p.media_ids])).toEqual([
      [laterId, [stays]],
      [id, [stays]],
    ]);
    for (const bearer of [undefined, token]) {
      expect((await get(`/posts/id/${id}`, bearer)).json()).toMatchObject({ media_ids: [stays] });
      expect((await get(`/posts/public`, token)).json<{ media_ids: string[] }[]>()[0]!.media_ids).toEqual([stays]);
    }
    const view = await t.app.inject({
      method: 'POST',
      url: '/views',
      headers: { authorization: `Bearer ${views}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'posts', kinds: ['posts'], scope: 'public' }),
    });
    const shownInView = (await get(`/views/${view.json<{ id: string }>().id}`)).json<{
      items: { item: { media_ids: string[] } }[];
    }>();
    expect(shownInView.items.map((entry) => entry.item.media_ids)).toEqual([[stays], [stays]]);
    for (const format of ['atom', 'jsonfeed']) {
      const body = (await get(`/posts/public/photographer?format=${format}`)).body;
      expect(body).toContain(id);
      expect(body).not.toContain(turns);
      expect(body).not.toContain(gone);
    }
    // The owner's private collection is not a public rendering: a private post shows what it names.
    await t.database.db.updateTable('posts').set({ scope: 'private' }).where('id', '=', laterId).execute();
    expect((await get(`/posts/id/${laterId}`, token)).json()).toMatchObject({ media_ids: [stays, turns] });
  });
});
