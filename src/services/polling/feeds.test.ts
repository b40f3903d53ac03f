// The `feed` service type against a small real server on loopback: RSS 2.0, Atom and JSON Feed
// fixtures written from their specifications (test/fixtures/feeds), conditional GET, ids that
// change, 429 with Retry-After, HTML with scripts, the first poll's backlog, two workers at once.
// Time is a variable the tests move: no test waits for an interval.
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, countRows, createTestUser, type TestApp } from '../../../test/helpers.ts';
import { startReceiver, type Receiver } from '../../../test/receivers.ts';
import { tokenFor } from '../../../test/tokens.ts';
import { createJobRunner, type JobRunner } from '../../job-runner.ts';

const MINUTE = 60_000;
let t: TestApp;
let alice: { id: string; username: string };
let token: string;
let clock = Date.now();
let server: Receiver;
let png: Buffer;
const runners: JobRunner[] = [];
/** What the feed server answers, by path. */
let routes: Record<string, { type: string; body: string | Buffer; headers?: Record<string, string> } | number> = {};

const fixture = (name: string) =>
  readFileSync(new URL(`../../../test/fixtures/feeds/${name}`, import.meta.url), 'utf8').replaceAll(
    '{{BASE}}',
    server.url,
  );

beforeAll(async () => {
  t = await buildTestApp({ env: { WAYPOST_OUTBOUND_ALLOW: 'loopback' } });
  alice = await createTestUser(t.database);
  token = await tokenFor(t, alice, ['get_services', 'create_service', 'delete_service', 'get_private_scope']);
  png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#3366cc' } })
    .png()
    .toBuffer();
  server = await startReceiver();
});
const serveRoutes: Receiver['answer'] = (request, response) => {
  const route = routes[request.path.split('?')[0] ?? ''];
  if (route === undefined) return response.writeHead(404).end();
  if (typeof route === 'number') return response.writeHead(route).end();
  response.writeHead(200, { 'content-type': route.type, ...route.headers }).end(route.body);
};
beforeEach(() => {
  server.answer = serveRoutes;
});
afterEach(async () => {
  await Promise.all(runners.splice(0).map((runner) => runner.close()));
  server.received.length = 0;
  routes = {};
  // Each test polls its own services only.
  await t.database.db.deleteFrom('services').where('user_id', '=', alice.id).execute();
  await t.database.db.updateTable('jobs').set({ status: 'cancelled' }).where('kind', '=', 'poll').execute();
});
afterAll(async () => {
  await server.close();
  await t.close();
});

function runner(): JobRunner {
  const created = createJobRunner({ config: t.config, database: t.database, now: () => clock, random: () => 0.5 });
  runners.push(created);
  return created;
}

async function createFeed(config: Record<string, unknown>) {
  const response = await t.app.inject({
    method: 'POST',
    url: '/services',
    headers: { authorization: `Bearer ${token}` },
    payload: { type: 'feed', name: 'feed', config },
  });
  expect(response.statusCode).toBe(201);
  clock = Math.max(clock, Date.now());
  return response.json<{ id: string; capabilities: string[]; config: Record<string, unknown> }>();
}

function change(id: string, config: Record<string, unknown> | { enabled: boolean }) {
  const payload = 'enabled' in config ? config : { config };
  return t.app.inject({
    method: 'POST',
    url: `/services/${id}`,
    headers: { authorization: `Bearer ${token}` },
    payload,
  });
}

interface PostOut {
  id: string;
  text: string;
  time: number;
  scope: string;
  source: string | null;
  source_url: string | null;
  media_ids: string[];
}

/** The posts a service brought in, newest first. */
async function postsFrom(serviceId: string): Promise<PostOut[]> {
  const answers = await Promise.all(
    ['public', 'private'].map((scope) =>
      t.app.inject({ url: `/posts/${scope}?count=1000`, headers: { authorization: `Bearer ${token}` } }),
    ),
  );
  return answers
    .flatMap((answer) => answer.json<PostOut[]>())
    .filter((post) => post.source === serviceId)
    .sort((a, b) => b.time - a.time);
}

const feedRequests = (path: string) => server.received.filter((request) => request.path === path);

describe('feeds of all three kinds', () => {
  it('RSS 2.0: each item once as a post, with its time, text, link and image', async () => {
    routes['/rss.xml'] = { type: 'application/rss+xml', body: fixture('rss2.xml') };
    routes['/img/star-city.png'] = { type: 'image/png', body: png };
    const service = await createFeed({ url: `${server.url}/rss.xml` });
    expect(service.capabilities).toEqual(['import']);
    expect(service.config).toEqual({ url: `${server.url}/rss.xml` });

    expect(await runner().worker.runOnce()).toBe(1);

    const posts = await postsFrom(service.id);
    expect(posts.map(({ text, time, source_url, scope }) => ({ text, time, source_url, scope }))).toEqual([
      {
        text: "Star City\n\nHow do Americans get ready to work with Russians aboard the International Space Station? They take a crash course in culture, language and protocol at Russia's Star City.",
        time: Date.parse('Tue, 03 Jun 2003 09:39:21 GMT') / 1000,
        source_url: `${server.url}/news/2003/06/03.html`,
        scope: 'public',
      },
      {
        text: 'Sky watchers in Europe, Asia, and parts of Alaska and Canada will experience a partial eclipse of the Sun on Saturday, May 31st.',
        time: Date.parse('Fri, 30 May 2003 11:06:42 GMT') / 1000,
        source_url: `${server.url}/2003/05/30.html#item572`,
        scope: 'public',
      },
      {
        text: 'The Engine That Does More\n\nBefore man travels to Mars, NASA hopes to design new engines that will let us fly through the Solar System more quickly.\n\nThe proposed VASIMR engine would do that & more.',
        time: Date.parse('Tue, 27 May 2003 08:37:32 GMT') / 1000,
        source_url: `${server.url}/news/2003/05/27.html`,
        scope: 'public',
      },
    ]);
    // The enclosure was fetched and stored as a medium of the post, with the post's scope.
    const [first] = posts;
    expect(first?.media_ids).toHaveLength(1);
    const medium = await t.app.inject({
      url: `/media/id/${first?.media_ids[0] ?? ''}`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(medium.json()).toMatchObject({
      kind: 'image',
      mime_type: 'image/png',
      width: 40,
      height: 30,
      scope: 'public',
    });
    expect(posts[1]?.media_ids).toEqual([]);

    // The next poll finds nothing new.
    clock += 15 * MINUTE + 1;
    expect(await runner().worker.runOnce()).toBe(1);
    expect(await postsFrom(service.id)).toHaveLength(3);
  });

  it('Atom: text, html and xhtml content read by their type; relative links resolved', async () => {
    routes['/feed.atom'] = { type: 'application/atom+xml', body: fixture('atom.xml') };
    const service = await createFeed({ url: `${server.url}/feed.atom`, scope: 'private' });
    expect(await runner().worker.runOnce()).toBe(1);
    const posts = await postsFrom(service.id);
    expect(posts.map(({ text, time, source_url, scope }) => ({ text, time, source_url, scope }))).toEqual([
      {
        text: 'Less than & more\n\nEscaped HTML & an entity.',
        time: Date.parse('2005-05-01T10:00:00Z') / 1000,
        source_url: `${server.url}/2005/05/relative`,
        scope: 'private',
      },
      {
        text: 'Plain\n\nText with <tags> that are text, not markup.',
        time: Date.parse('2005-04-01T18:30:02Z') / 1000,
        source_url: `${server.url}/2005/04/01/plain`,
        scope: 'private',
      },
      {
        text: 'Atom draft-07 snapshot\n\n[Update: The Atom draft is finished.]\n\nSecond & last paragraph.',
        time: Date.parse('2003-12-13T08:29:29-04:00') / 1000,
        source_url: `${server.url}/2005/04/02/atom`,
        scope: 'private',
      },
    ]);
    // The audio enclosure is not an image: nothing was fetched.
    expect(server.received.map((request) => request.path)).toEqual(['/feed.atom']);
  });

  it('JSON Feed 1.1: content_html, content_text, summary; image; an item without a date is dated now', async () => {
    routes['/feed.json'] = { type: 'application/feed+json', body: fixture('feed.json') };
    routes['/img/first.png'] = { type: 'image/png', body: png };
    const service = await createFeed({ url: `${server.url}/feed.json` });
    expect(await runner().worker.runOnce()).toBe(1);
    const posts = await postsFrom(service.id);
    expect(
      posts.map(({ text, time, source_url, media_ids }) => ({ text, time, source_url, media: media_ids.length })),
    ).toEqual([
      { text: 'A summary only, and no date.', time: clock / 1000, source_url: null, media: 0 },
      {
        text: 'This is a second item.',
        time: Date.parse('2010-02-07T14:04:00-05:00') / 1000,
        source_url: `${server.url}/second-item`,
        media: 0,
      },
      {
        text: 'First\n\nHello, world!',
        time: Date.parse('2010-02-06T10:00:00Z') / 1000,
        source_url: `${server.url}/first-item`,
        media: 1,
      },
    ]);
  });
});

describe('polling', () => {
  it('conditional GET: the second poll sends the validators; a 304 stores nothing', async () => {
    let changed = false;
    const etag = '"v1"';
    const lastModified = 'Tue, 03 Jun 2003 09:39:21 GMT';
    routes['/cond.xml'] = {
      type: 'application/rss+xml',
      body: fixture('rss2.xml'),
      headers: { etag, 'last-modified': lastModified },
    };
    const service = await createFeed({ url: `${server.url}/cond.xml` });
    expect(await runner().worker.runOnce()).toBe(1);
    expect(await postsFrom(service.id)).toHaveLength(3);
    const before = await countRows(t.database, 'posts');

    server.answer = (request, response) => {
      const fresh = request.headers['if-none-match'] === etag && !changed;
      if (fresh) return response.writeHead(304, { etag }).end();
      response.writeHead(500).end();
    };
    clock += 15 * MINUTE + 1;
    expect(await runner().worker.runOnce()).toBe(1);
    const [first, second] = feedRequests('/cond.xml');
    expect(first?.headers['if-none-match']).toBeUndefined();
    expect(first?.headers['if-modified-since']).toBeUndefined();
    expect(second?.headers['if-none-match']).toBe(etag);
    expect(second?.headers['if-modified-since']).toBe(lastModified);
    expect(await countRows(t.database, 'posts')).toBe(before);
    const answer = await t.app.inject({
      url: `/services/${service.id}`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(answer.json()).toEqual([expect.objectContaining({ status: 'ok', last_error: null })]);
    changed = true;
  });

  it('a feed that changes its entries ids: known links are not brought in again; a new entry is', async () => {
    const items = (ids: string[], extra = '') =>
      `<?xml version="1.0"?><rss version="2.0"><channel><title>t</title><link>${server.url}/</link><description>d</description>${extra}${ids
        .map(
          (id, index) =>
            `<item><title>Entry ${index}</title><link>${server.url}/e/${index}</link><guid isPermaLink="false">${id}</guid><pubDate>Mon, 0${index + 1} Jan 2024 10:00:00 GMT</pubDate></item>`,
        )
        .join('')}</channel></rss>`;
    routes['/moving.xml'] = { type: 'application/rss+xml', body: items(['a', 'b', 'c']) };
    const service = await createFeed({ url: `${server.url}/moving.xml` });
    expect(await runner().worker.runOnce()).toBe(1);
    expect(await postsFrom(service.id)).toHaveLength(3);

    const newEntry = `<item><title>Brand new</title><link>${server.url}/e/new</link><guid isPermaLink="false">site2:new</guid><pubDate>Tue, 09 Jan 2024 10:00:00 GMT</pubDate></item>`;
    routes['/moving.xml'] = { type: 'application/rss+xml', body: items(['site2:a', 'site2:b', 'site2:c'], newEntry) };
    clock += 15 * MINUTE + 1;
    expect(await runner().worker.runOnce()).toBe(1);
    const posts = await postsFrom(service.id);
    expect(posts.map((post) => post.text)).toEqual(['Brand new', 'Entry 2', 'Entry 1', 'Entry 0']);
  });

  it('429 with Retry-After: the next poll waits for it; the service shows the error', async () => {
    routes['/busy.xml'] = { type: 'text/plain', body: 'slow down', headers: { 'retry-after': '7200' } };
    server.answer = (request, response) => {
      if (request.path === '/busy.xml') return response.writeHead(429, { 'retry-after': '7200' }).end();
      response.writeHead(404).end();
    };
    const service = await createFeed({ url: `${server.url}/busy.xml` });
    const { worker } = runner();
    expect(await worker.runOnce()).toBe(1);
    const answer = await t.app.inject({
      url: `/services/${service.id}`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(answer.json()).toEqual([
      expect.objectContaining({ status: 'error', last_error: `HTTP 429 from ${server.url}` }),
    ]);
    // Backoff alone would poll again after twice the interval (30 minutes); the server asked for two hours.
    const started = clock;
    clock = started + 2 * 15 * MINUTE + 1;
    expect(await worker.runOnce()).toBe(0);
    clock = started + 7200 * 1000 - 1;
    expect(await worker.runOnce()).toBe(0);
    clock = started + 7200 * 1000;
    expect(await worker.runOnce()).toBe(1);
    expect(feedRequests('/busy.xml')).toHaveLength(2);
  });

  it('HTML with scripts: the stored post has none', async () => {
    const hostile = JSON.stringify({
      version: 'https://jsonfeed.org/version/1.1',
      title: 'x',
      items: [
        {
          id: 'evil',
          url: `${server.url}/evil`,
          content_html:
            '<p>Hello <b>there</b></p><script>alert("xss")</script><img src="javascript:alert(1)" onerror="alert(2)"><style>body{display:none}</style><iframe src="https://evil.example/"></iframe><p onclick="steal()">Bye</p><a href="javascript:alert(3)">link</a>',
          date_published: '2024-01-01T00:00:00Z',
        },
      ],
    });
    routes['/evil.json'] = { type: 'application/feed+json', body: hostile };
    const service = await createFeed({ url: `${server.url}/evil.json` });
    expect(await runner().worker.runOnce()).toBe(1);
    const [post] = await postsFrom(service.id);
    expect(post?.text).toBe('Hello there\n\nBye\n\nlink');
    expect(post?.media_ids).toEqual([]);
    // Nothing was fetched for the javascript: image.
    expect(server.received.map((request) => request.path)).toEqual(['/evil.json']);
  });

  it('the first poll brings in the newest `backlog` entries; later polls every new one', async () => {
    const entries = (count: number) =>
      JSON.stringify({
        version: 'https://jsonfeed.org/version/1.1',
        title: 'x',
        items: Array.from({ length: count }, (_, index) => ({
          id: `n${index}`,
          content_text: `Note ${index}`,
          date_published: new Date(Date.UTC(2024, 0, 1 + index)).toISOString(),
        })).reverse(),
      });
    routes['/notes.json'] = { type: 'application/feed+json', body: entries(7) };
    const service = await createFeed({ url: `${server.url}/notes.json`, backlog: 3 });
    expect(service.config).toEqual({ url: `${server.url}/notes.json`, backlog: 3 });
    expect(await runner().worker.runOnce()).toBe(1);
    expect((await postsFrom(service.id)).map((post) => post.text)).toEqual(['Note 6', 'Note 5', 'Note 4']);

    routes['/notes.json'] = { type: 'application/feed+json', body: entries(9) };
    clock += 15 * MINUTE + 1;
    expect(await runner().worker.runOnce()).toBe(1);
    expect((await postsFrom(service.id)).map((post) => post.text)).toEqual([
      'Note 8',
      'Note 7',
      'Note 6',
      'Note 5',
      'Note 4',
    ]);
  });

  it('two workers at once: one poll', async () => {
    routes['/once.xml'] = { type: 'application/rss+xml', body: fixture('rss2.xml') };
    routes['/img/star-city.png'] = { type: 'image/png', body: png };
    const service = await createFeed({ url: `${server.url}/once.xml` });
    const ran = await Promise.all([runner().worker.runOnce(), runner().worker.runOnce()]);
    expect(ran.reduce((a, b) => a + b, 0)).toBe(1);
    expect(feedRequests('/once.xml')).toHaveLength(1);
    expect(await postsFrom(service.id)).toHaveLength(3);
    // One poll job is queued for the next time, however many workers closed one.
    const queued = await t.database.db
      .selectFrom('jobs')
      .select('status')
      .where('kind', '=', 'poll')
      .where('ref', '=', service.id)
      .where('status', '=', 'queued')
      .execute();
    expect(queued).toHaveLength(1);
  });

  it('deleting the service stops its polls; the posts it brought in stay', async () => {
    routes['/gone.json'] = { type: 'application/feed+json', body: fixture('feed.json') };
    routes['/img/first.png'] = { type: 'image/png', body: png };
    const service = await createFeed({ url: `${server.url}/gone.json` });
    expect(await runner().worker.runOnce()).toBe(1);
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/services/${service.id}`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(deleted.statusCode).toBe(204);
    clock += 60 * MINUTE;
    expect(await runner().worker.runOnce()).toBe(0);
    expect(await postsFrom(service.id)).toHaveLength(3);
  });

  it('a disabled feed is not fetched; enabled again it is polled at once', async () => {
    routes['/paused.xml'] = { type: 'application/rss+xml', body: fixture('rss2.xml') };
    const service = await createFeed({ url: `${server.url}/paused.xml` });
    expect((await change(service.id, { enabled: false })).statusCode).toBe(200);
    expect(await runner().worker.runOnce()).toBe(1);
    clock += 60 * MINUTE;
    expect(await runner().worker.runOnce()).toBe(1);
    expect(feedRequests('/paused.xml')).toEqual([]);
    expect(await postsFrom(service.id)).toEqual([]);

    expect((await change(service.id, { enabled: true })).statusCode).toBe(200);
    expect(await runner().worker.runOnce()).toBe(1);
    expect(feedRequests('/paused.xml')).toHaveLength(1);
    expect(await postsFrom(service.id)).toHaveLength(3);
  });

  it('a new interval polls at once and keeps the validators; a new URL starts afresh', async () => {
    const etag = '"one"';
    routes['/one.xml'] = { type: 'application/rss+xml', body: fixture('rss2.xml'), headers: { etag } };
    routes['/two.xml'] = { type: 'application/rss+xml', body: fixture('rss2.xml') };
    const service = await createFeed({ url: `${server.url}/one.xml` });
    expect(await runner().worker.runOnce()).toBe(1);
    expect(await postsFrom(service.id)).toHaveLength(3);

    const slower = await change(service.id, { interval_minutes: 60 });
    expect(slower.json()).toMatchObject({ config: { url: `${server.url}/one.xml`, interval_minutes: 60 } });
    expect(await runner().worker.runOnce()).toBe(1);
    expect(feedRequests('/one.xml').map((r) => r.headers['if-none-match'])).toEqual([undefined, etag]);
    // The next one waits for the new interval.
    clock += 59 * MINUTE;
    expect(await runner().worker.runOnce()).toBe(0);

    const moved = await change(service.id, { url: `${server.url}/two.xml`, interval_minutes: null });
    expect(moved.json()).toMatchObject({ config: { url: `${server.url}/two.xml` } });
    expect(moved.json<{ config: object }>().config).not.toHaveProperty('interval_minutes');
    expect(await runner().worker.runOnce()).toBe(1);
    expect(feedRequests('/two.xml').map((r) => r.headers['if-none-match'])).toEqual([undefined]);
    // The same entries under a new URL are known: nothing is brought in twice.
    expect(await postsFrom(service.id)).toHaveLength(3);
    const queued = await t.database.db
      .selectFrom('jobs')
      .select(['run_at'])
      .where('kind', '=', 'poll')
      .where('ref', '=', service.id)
      .where('status', 'in', ['queued', 'running'])
      .execute();
    expect(queued).toHaveLength(1);
  });

  it('a config that is not a feed config is 400 naming the field', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/services',
      headers: { authorization: `Bearer ${token}` },
      payload: { type: 'feed', name: 'f', config: { url: 'ftp://x.example/', interval_minutes: 1 } },
    });
    expect(response.statusCode).toBe(400);
    expect(
      response
        .json<{ errors: { path: string }[] }>()
        .errors.map((e) => e.path)
        .sort(),
    ).toEqual(['body/config/interval_minutes', 'body/config/url']);
  });
});
