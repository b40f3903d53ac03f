// GET /search and GET /search/public/<username> through HTTP (docs/api.md "Search"): words,
// phrases, prefixes, case and accents; who sees what; every query either answers or is a 400;
// and the index in step with a change, a delete, a restore and an account deletion.
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestUser, type TestApp } from '../../test/helpers.ts';
import { drain, importWorker, uploadImport } from '../../test/imports.ts';
import { gpsPhoto, uploadMedium } from '../../test/media.ts';
import { tokenFor } from '../../test/tokens.ts';
import { makeZip } from '../../test/zip.ts';
import { lazyMedia, restoreDeps } from '../job-runner.ts';
import type { Import } from '../imports/imports.schemas.ts';
import { deleteAccount } from '../users/account-deletion.logic.ts';
import { accountTraces } from '../account-traces.ts';
import { mediaStorage } from '../media/media.storage.ts';
import { signInLimits } from '../account/sign-in-limits.logic.ts';
import type { SearchResult } from './search.schemas.ts';

let t: TestApp;
let media: ReturnType<typeof lazyMedia>;
let alice: Awaited<ReturnType<typeof createTestUser>>;
/** Alice's token that reads private items, and one that does not. */
let full: string;
let publicOnly: string;
let bob: string;

beforeAll(async () => {
  t = await buildTestApp();
  media = lazyMedia(t.config);
  alice = await createTestUser(t.database, { username: 'alice' });
  full = await tokenFor(t, alice, ['create_post', 'upload_media', 'write_locations', 'get_private_scope']);
  publicOnly = await tokenFor(t, alice, ['create_post']);
  const bobUser = await createTestUser(t.database, { username: 'bob' });
  bob = await tokenFor(t, bobUser, ['create_post', 'get_private_scope']);
});
afterAll(async () => {
  media?.close();
  await t?.close();
});

const auth = (token: string) => ({ authorization: `Bearer ${token}` });

async function write(
  token: string,
  method: 'POST' | 'DELETE',
  url: string,
  payload?: object,
): Promise<{ id: string; time?: number }> {
  const response = await t.app.inject({ method, url, headers: auth(token), ...(payload ? { payload } : {}) });
  expect(response.statusCode, response.body).toBeLessThan(300);
  return response.body === '' ? { id: '' } : response.json<{ id: string; time?: number }>();
}

/** Each post's `time` (seconds, to the millisecond), by id. */
const times = new Map<string, number>();
/** A post, each at least a millisecond after the one before, so results have a known order. */
async function post(text: string, scope: 'public' | 'private' = 'public', token = full): Promise<string> {
  await new Promise((resolve) => setTimeout(resolve, 2));
  const created = await write(token, 'POST', '/posts', { text, scope, groups: [] });
  times.set(created.id, created.time!);
  return created.id;
}

const search = (query: string, token?: string) =>
  t.app.inject({ url: `/search${query}`, headers: token ? auth(token) : {} });

/** The ids a search finds (200 asserted). */
async function found(query: string, token: string | undefined = full): Promise<string[]> {
  const response = await search(query, token);
  expect(response.statusCode, response.body).toBe(200);
  return response.json<SearchResult[]>().map((result) => result.id);
}
const q = (text: string) => `?q=${encodeURIComponent(text)}`;

describe('matching', () => {
  let marathon: string;
  let lisbon: string;
  let cafe: string;
  beforeAll(async () => {
    marathon = await post('Ran the Berlin Marathon today, slowly.');
    lisbon = await post('Lisbon: the marathon of stairs.');
    cafe = await post('Un café à São Paulo, déjà vu.');
  });

  it('finds every word in any order, all required, case-insensitive, newest first', async () => {
    expect(await found(q('marathon'))).toEqual([lisbon, marathon]);
    expect(await found(q('MARATHON berlin'))).toEqual([marathon]);
    expect(await found(q('berlin lisbon'))).toEqual([]);
  });

  it('finds a quoted phrase only in that order', async () => {
    expect(await found(q('"the berlin marathon"'))).toEqual([marathon]);
    expect(await found(q('"marathon berlin"'))).toEqual([]);
    expect(await found(q('"the marathon'))).toEqual([lisbon]);
  });

  it('finds prefixes', async () => {
    expect(await found(q('marath*'))).toEqual([lisbon, marathon]);
    expect(await found(q('"berlin mara"*'))).toEqual([marathon]);
    expect(await found(q('marath'))).toEqual([]);
  });

  it('ignores accents both ways', async () => {
    expect(await found(q('sao paulo cafe deja'))).toEqual([cafe]);
    expect(await found(q('SÃO CAFÉ'))).toEqual([cafe]);
    expect(await found(q('Déja*'))).toEqual([cafe]);
  });

  it('answers each result with its kind, time, an escaped snippet with the matches marked, and the post', async () => {
    const id = await post('Tags <b>like this</b> & a marathon\nwith "quotes"');
    const response = await search(q('marathon like'), full);
    expect(response.statusCode).toBe(200);
    const [result] = response.json<SearchResult[]>();
    expect(result).toMatchObject({ kind: 'posts', id, time: times.get(id) });
    expect(result!.snippet).toBe(
      'Tags &lt;b&gt;<mark>like</mark> this&lt;/b&gt; &amp; a <mark>marathon</mark> with &quot;quotes&quot;',
    );
    expect(result!.item).toMatchObject({ id, text: 'Tags <b>like this</b> & a marathon\nwith "quotes"' });
  });

  it('cuts a long text around the first match', async () => {
    const long = `${'filler '.repeat(60)}the needle is here ${'tail '.repeat(60)}`;
    await post(long);
    const [result] = (await search(q('needle'), full)).json<SearchResult[]>();
    expect(result!.snippet.startsWith('…filler filler')).toBe(true);
    expect(result!.snippet).toContain('the <mark>needle</mark> is here');
    expect(result!.snippet.endsWith('tail tail…')).toBe(true);
    expect(result!.snippet.length).toBeLessThan(200);
  });

  it('pages newest first through Link: rel="next", and keeps to since_time and until_time', async () => {
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await post(`paging word ${i}`));
    const first = await search(`${q('paging')}&count=2`, full);
    expect(first.json<SearchResult[]>().map((r) => r.id)).toEqual([ids[4], ids[3]]);
    const next = /<([^>]+)>; rel="next"/.exec(String(first.headers.link))![1]!;
    const second = await t.app.inject({ url: next.replace('http://waypost.test', ''), headers: auth(full) });
    expect(second.json<SearchResult[]>().map((r) => r.id)).toEqual([ids[2], ids[1]]);
    const window = `since_time=${times.get(ids[1]!)}&until_time=${times.get(ids[3]!)}`;
    expect(await found(`${q('paging')}&${window}`)).toEqual([ids[2], ids[1]]);
    expect((await search(`${q('paging')}&cursor=made.up`, full)).statusCode).toBe(400);
  });
});

describe('who sees what', () => {
  let open: string;
  let secret: string;
  beforeAll(async () => {
    open = await post('zebra crossing in public');
    secret = await post('zebra secret diary', 'private');
    await post('zebra of bob', 'private', bob);
    await post('zebra of bob in public', 'public', bob);
  });

  it('shows the owner both scopes with get_private_scope, the public ones without', async () => {
    expect(await found(q('zebra'))).toEqual([secret, open]);
    expect(await found(q('zebra'), publicOnly)).toEqual([open]);
    expect(await found(`${q('zebra')}&scope=private`)).toEqual([secret]);
    expect(await found(`${q('zebra')}&scope=public`)).toEqual([open]);
  });

  it('refuses private scope and places without get_private_scope, and asks for a token', async () => {
    expect((await search(`${q('zebra')}&scope=private`, publicOnly)).statusCode).toBe(401);
    expect((await search(`${q('zebra')}&kind=places`, publicOnly)).statusCode).toBe(401);
    expect((await search(q('zebra'))).statusCode).toBe(401);
  });

  it("never shows another person's items, private or public", async () => {
    expect(await found(q('zebra bob'))).toEqual([]);
  });

  it('shows anyone the public items alone on /search/public/<username>, as the public reads show them', async () => {
    expect(await found(`/public/alice${q('zebra')}`.replace('?', '?'), undefined)).toEqual([open]);
    const response = await t.app.inject({ url: `/search/public/alice${q('zebra')}` });
    expect(response.statusCode).toBe(200);
    const item = response.json<SearchResult[]>()[0]!.item;
    const read = await t.app.inject({ url: `/posts/id/${open}` });
    expect(item).toEqual(read.json());
    expect((await t.app.inject({ url: `/search/public/alice${q('secret diary')}` })).json()).toEqual([]);
    expect((await t.app.inject({ url: `/search/public/alice${q('zebra')}&kind=places` })).statusCode).toBe(400);
    expect((await t.app.inject({ url: `/search/public/nobody_here${q('zebra')}` })).statusCode).toBe(404);
  });
});

describe('queries that are not searches', () => {
  it.each([
    ['empty', ''],
    ['no word', ' *** "" () - '],
    ['a one-letter prefix', 'a*'],
    ['too long', 'w'.repeat(501)],
    ['too many words', Array.from({ length: 17 }, (_, i) => `w${i}`).join(' ')],
  ])('%s is 400 problem+json naming q', async (_name, text) => {
    const response = await search(q(text), full);
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json<{ errors: { path: string }[] }>().errors[0]!.path).toBe('querystring/q');
  });

  it('any mix of words and engine syntax is a search (200), never an engine error', async () => {
    const word = fc.constantFrom('and', 'OR', 'NEAR', 'not', 'Über', 'marathon', 'x1', 'NOT');
    const piece = fc.oneof(
      word,
      word.map((w) => `${w}*`),
      fc.constantFrom(
        '"',
        '(',
        ')',
        ':',
        '^',
        '-',
        '+',
        "'",
        '\\',
        '{',
        '}',
        '.',
        ',',
        ' ',
        '*',
        '&',
        '|',
        '!',
        '<->',
        '%',
      ),
    );
    const input = fc.array(piece, { minLength: 1, maxLength: 12 }).map((pieces) => pieces.join(''));
    await fc.assert(
      fc.asyncProperty(input, async (text) => {
        const hasWord = /[\p{L}\p{N}]/u.test(text.replaceAll('NEAR', 'NEAR'));
        const response = await search(q(text), full);
        expect(response.statusCode, `${text}: ${response.body}`).toBe(hasWord ? 200 : 400);
      }),
      { numRuns: 150 },
    );
  });
});

describe('the index in step', () => {
  it("follows a change of scope, a post's text, a caption, a place name and a delete", async () => {
    const id = await post('walrus on the beach', 'private');
    expect(await found(`/public/alice${q('walrus')}`, undefined)).toEqual([]);
    await write(full, 'POST', `/posts/id/${id}`, { scope: 'public' });
    expect(await found(`/public/alice${q('walrus')}`, undefined)).toEqual([id]);
    await write(full, 'POST', `/posts/id/${id}`, { text: 'walrus and seal on the beach' });
    expect(await found(q('seal'))).toEqual([id]);
    expect(await found(q('"walrus on"'))).toEqual([]);

    const upload = await uploadMedium(t, full, await gpsPhoto(), 'p.jpg', 'image/jpeg', { caption: 'a pelican' });
    expect(upload.statusCode, upload.body).toBe(201);
    const medium = upload.json<{ id: string }>().id;
    expect(await found(q('pelican'))).toEqual([medium]);
    await write(full, 'POST', `/media/id/${medium}`, { caption: 'an albatross' });
    expect(await found(q('pelican'))).toEqual([]);
    expect(await found(`${q('albatross')}&kind=media`)).toEqual([medium]);
    expect(await found(`${q('albatross')}&kind=posts`)).toEqual([]);

    const place = (await write(full, 'POST', '/places', { name: 'Grandma’s garden', lat: 48.2, lon: 16.37 })).id;
    expect(await found(q('grandma garden'))).toEqual([place]);
    expect(await found(q('grandma garden'), publicOnly)).toEqual([]);
    await write(full, 'POST', `/places/${place}`, { name: 'Allotment' });
    expect(await found(q('grandma'))).toEqual([]);
    expect(await found(`${q('allotment')}&kind=places`)).toEqual([place]);

    await write(full, 'DELETE', `/posts/id/${id}`);
    await write(full, 'DELETE', `/media/id/${medium}`);
    await write(full, 'DELETE', `/places/${place}`);
    expect(await found(q('walrus'))).toEqual([]);
    expect(await found(q('albatross'))).toEqual([]);
    expect(await found(q('allotment'))).toEqual([]);
  });

  it("finds a private medium by the words of its file's name, and a public one by its caption alone", async () => {
    const upload = await uploadMedium(t, full, await gpsPhoto('#114477'), 'PXL_2024-kayak.trip.jpg', 'image/jpeg', {
      caption: 'on the fjord',
      scope: 'private',
    });
    expect(upload.statusCode, upload.body).toBe(201);
    const medium = upload.json<{ id: string }>().id;
    expect(await found(q('kayak'))).toEqual([medium]);
    expect(await found(q('pxl kayak trip jpg'))).toEqual([medium]);
    expect(await found(q('"fjord pxl 2024 kayak"'))).toEqual([medium]);
    const response = await search(q('kayak'), full);
    expect(response.json<SearchResult[]>()[0]!.snippet).toBe('on the fjord PXL 2024 <mark>kayak</mark> trip jpg');
    // Only its owner's search reads private media: a token without get_private_scope finds nothing.
    expect(await found(q('kayak'), publicOnly)).toEqual([]);

    // Public: the name is metadata nobody published, so it leaves the index; the caption stays.
    await write(full, 'POST', `/media/id/${medium}`, { scope: 'public' });
    expect(await found(q('kayak'))).toEqual([]);
    expect(await found(`/public/alice${q('kayak')}`, undefined)).toEqual([]);
    expect(await found(`/public/alice${q('fjord')}`, undefined)).toEqual([medium]);
    await write(full, 'POST', `/media/id/${medium}`, { scope: 'private' });
    expect(await found(q('kayak'))).toEqual([medium]);
    await write(full, 'DELETE', `/media/id/${medium}`);
    expect(await found(q('kayak'))).toEqual([]);
  });

  it('finds what a restore brought back', async () => {
    const person = await createTestUser(t.database, { username: 'restorer' });
    const token = await tokenFor(t, person, [
      'create_post',
      'upload_media',
      'write_locations',
      'get_private_scope',
      'manage_views',
      'update_settings',
      'create_service',
      'manage_groups',
    ]);
    const readme = { name: 'README.txt', data: 'format: waypost-export\nversion: 1\nusername: x\n\n' };
    const record = (id: string, text: string, scope: string) =>
      JSON.stringify({
        id,
        text,
        scope,
        time: 1_650_000_000,
        created_at: 1_650_000_000,
        media_ids: [],
        location: null,
        source: null,
      });
    const zip = makeZip([
      readme,
      {
        name: 'posts.jsonl',
        data: [
          record('01HZZZZZZZZZZZZZZZZZZZZZS1', 'Restored okapi sighting', 'public'),
          record('01HZZZZZZZZZZZZZZZZZZZZZS2', 'Restored private okapi', 'private'),
        ].join('\n'),
      },
    ]);
    const upload = await uploadImport(t, token, zip, 'export.zip');
    expect(upload.statusCode, upload.body).toBe(202);
    await drain(importWorker(t, { restore: restoreDeps(t.config, media) }));
    const done = (
      await t.app.inject({ url: `/imports/${upload.json<{ id: string }>().id}`, headers: auth(token) })
    ).json<Import>();
    expect(done.errors).toEqual([]);
    expect(await found(q('okapi'), token)).toHaveLength(2);
    expect(await found(`/public/restorer${q('okapi')}`, undefined)).toHaveLength(1);
  });

  it('keeps no row of a deleted account', async () => {
    const person = await createTestUser(t.database, { username: 'leaver' });
    const token = await tokenFor(t, person, ['create_post', 'write_locations', 'get_private_scope']);
    await post('a farewell narwhal', 'public', token);
    await write(token, 'POST', '/places', { name: 'Narwhal bay', lat: 60, lon: 10 });
    const rows = async () =>
      (
        await sql<{ n: number }>`select count(*) as n from search_docs where user_id = ${person.id}`.execute(
          t.database.db,
        )
      ).rows[0]!.n;
    expect(Number(await rows())).toBe(2);
    await deleteAccount(t.database, person.id, accountTraces(mediaStorage(t.config), signInLimits(t.config)));
    expect(Number(await rows())).toBe(0);
  });
});
