// A person's public pages for everyone, no sign-in (docs/web-public.md):
//
//   GET /@<username>            profile: h-card, a map of public places, public posts (h-feed), paged
//   GET /@<username>/<post id>  one public post
//
// They follow the public collections' caching rules (src/items/public-pages.ts): a weak ETag from
// the person's items_version and profile, 304 on If-None-Match, and copies kept in memory and
// replayed. The page is the same for every visitor, signed in or not, so a copy fits anyone.
// An unknown person, a missing post and a private post all get one and the same 404 page.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { AppError } from '../../http/errors.ts';
import { decodeCursor } from '../../items/items.logic.ts';
import { noneMatch } from '../../items/conditional.ts';
import { pageEtag, requestKey, type PageCache, type PageVersion } from '../../items/public-pages.ts';
import { mapPolicy } from './assets.ts';
import { badRequestHtml, notFoundHtml, personLinks, postHtml, profileHtml } from './profile.html.ts';
import { latestPublicPlace, personByUsername, profileEntries, publicEntry } from './profile.logic.ts';

const HTML = 'text/html; charset=utf-8';

export interface PublicPagesOptions {
  db: Db;
  config: Config;
  pages?: PageCache | undefined;
}

export async function publicPagesRoutes(app: FastifyInstance, { db, config, pages }: PublicPagesOptions) {
  const { baseUrl } = config;
  const policy = mapPolicy(config);
  const hide = { schema: { hide: true } };

  function sendPlain(reply: FastifyReply, status: number, body: string) {
    return reply.code(status).headers(policy).type(HTML).header('cache-control', 'no-store').send(body);
  }
  const notFound = (reply: FastifyReply) => sendPlain(reply, 404, notFoundHtml());

  /**
   * A public page: 304 when the client has this version, else the copy in memory, else built
   * and kept with its headers. `build` answers undefined for "no such page" (never kept).
   */
  async function sendPublicHtml(
    request: FastifyRequest,
    reply: FastifyReply,
    {
      version,
      checked,
      build,
    }: { version: PageVersion; checked: { at: number; generation: number }; build: () => Promise<string | undefined> },
  ) {
    const key = requestKey(request.url, request.headers);
    const etag = pageEtag(baseUrl, `page\n${key}`, version);
    if (noneMatch(request.headers['if-none-match'], etag)) {
      return reply.code(304).headers(policy).header('etag', etag).header('cache-control', 'public, no-cache').send();
    }
    const kept = pages?.current(key, etag, checked);
    let body = kept?.page.body;
    if (!body) {
      const built = await build();
      if (built === undefined) return notFound(reply);
      body = Buffer.from(built);
    }
    void reply.headers(policy).header('etag', etag).header('cache-control', 'public, no-cache').type(HTML);
    if (pages && !kept) {
      const { 'x-request-id': _perRequest, ...headers } = reply.getHeaders();
      const route = request.routeOptions.url ?? request.url;
      const page = { type: HTML, body, link: undefined };
      pages.keep(key, { etag, page, headers, route, checkedAt: checked.at, generation: checked.generation });
    }
    return reply.send(body);
  }

  /** The one `cursor` a profile page takes, checked before anything is read. */
  function cursorOf(request: FastifyRequest): { cursor: string | undefined } | { error: string } {
    const query = request.query as Record<string, unknown>;
    const cursor = query.cursor;
    if (cursor === undefined) return { cursor: undefined };
    try {
      if (typeof cursor !== 'string') throw new AppError('invalid_request', 'Give one cursor.');
      decodeCursor(cursor);
      return { cursor };
    } catch (error) {
      if (error instanceof AppError && error.status === 400) {
        return {
          error: 'The "cursor" in this address was not made by this server. Follow the "Older posts" link instead.',
        };
      }
      throw error;
    }
  }

  app.get<{ Params: { username: string } }>('/@:username', hide, async (request, reply) => {
    const given = cursorOf(request);
    if ('error' in given) return sendPlain(reply, 400, badRequestHtml(given.error));
    // Taken before the version is read: a write answered after this outdates what is built now.
    const checked = { at: performance.now(), generation: pages?.generation ?? 0 };
    const found = await personByUsername(db, request.params.username);
    if (!found) return notFound(reply);
    const { person, version } = found;
    return sendPublicHtml(request, reply, {
      version,
      checked,
      build: async () => {
        const page = await profileEntries(db, baseUrl, person, given.cursor);
        const later = given.cursor !== undefined;
        const next = page.next ? `${personLinks(baseUrl, person.username).profile}?cursor=${page.next}` : undefined;
        const place = later ? undefined : await latestPublicPlace(db, person);
        return profileHtml({ baseUrl, person, entries: page.items, next, later, place, basemap: config.mapStyle });
      },
    });
  });

  app.get<{ Params: { username: string; id: string } }>('/@:username/:id', hide, async (request, reply) => {
    const checked = { at: performance.now(), generation: pages?.generation ?? 0 };
    const found = await personByUsername(db, request.params.username);
    if (!found) return notFound(reply);
    const { person, version } = found;
    return sendPublicHtml(request, reply, {
      version,
      checked,
      build: async () => {
        const entry = await publicEntry(db, baseUrl, person, request.params.id);
        return entry ? postHtml(baseUrl, person, entry) : undefined;
      },
    });
  });
}
