// A person's public pages for everyone, no sign-in (docs/web-public.md):
//
//   GET /@<username>            profile: h-card, a map of public places, public posts (h-feed), paged
//   GET /@<username>/<post id>  one public post
//   GET /@<username>/media/<id> one public medium, in the viewer
//   GET /@<username>/tagged/<tag>  the public posts with #tag
//
// They follow the public collections' caching rules (src/items/public-pages.ts decides when a
// copy is used, kept and dropped): a weak ETag from the person's items_version and profile, 304
// on If-None-Match, and copies kept in memory and replayed. The page is the same for every visitor, signed in or not, so a copy fits anyone.
// An unknown person, a missing post and a private post all get one and the same 404 page.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import type { Cursors } from '../../core/cursors.ts';
import { AppError } from '../../core/errors.ts';
import { checkpoint, publicCopy, type PageCache } from '../../items/public-pages.ts';
import { mapPolicy } from '../map/map-policy.ts';
import { badRequestHtml, notFoundHtml, personLinks, postHtml, profileHtml, tagUrl } from './profile.html.ts';
import { latestPublicPlace } from '../map/latest-place.ts';
import {
  personByUsername,
  profileEntries,
  publicEntry,
  tagQuery,
  taggedEntries,
  PROFILE_PAGE_SIZE,
  type Person,
} from './profile.logic.ts';
import { publicSearcher, search } from '../../search/search.logic.ts';
import { parseQuery } from '../../search/search.query.ts';
import { publicSearchHtml } from './search.html.ts';
import { isTag } from '../../search/hashtags.ts';
import { neighbourIds, publicMediumOf } from '../../media/media.viewer.ts';
import { publicMediumHtml, taggedHtml } from './viewer.html.ts';

/** Why `q` is not a search (as the API's 400 says it), or undefined when it is one. */
function refusalOf(q: string): string | undefined {
  try {
    parseQuery(q);
    return undefined;
  } catch (error) {
    if (error instanceof AppError && error.status === 400) {
      return `The search ${error.extra.errors?.[0]?.message ?? 'is not one this server can run'}.`;
    }
    throw error;
  }
}

const HTML = 'text/html; charset=utf-8';

export interface PublicPagesOptions {
  db: Db;
  config: Config;
  pages?: PageCache | undefined;
  /** The collection cursors (src/core/cursors.ts): the profile pages page like the public posts. */
  cursors: Cursors;
}

export async function publicPagesRoutes(app: FastifyInstance, { db, config, pages, cursors }: PublicPagesOptions) {
  const { baseUrl } = config;
  const policy = mapPolicy(config);
  const hide = { schema: { hide: true } };

  function sendPlain(reply: FastifyReply, status: number, body: string) {
    return reply.code(status).headers(policy).type(HTML).header('cache-control', 'no-store').send(body);
  }
  const notFound = (reply: FastifyReply) => sendPlain(reply, 404, notFoundHtml());

  /**
   * The person's public page: 304 when the client has this version, else the copy in memory,
   * else built and kept with its headers (src/items/public-pages.ts). `build` answers undefined
   * for "no such page" (never kept); so does an unknown person.
   */
  async function sendPublicHtml(
    request: FastifyRequest<{ Params: { username: string } }>,
    reply: FastifyReply,
    build: (person: Person) => Promise<string | undefined>,
  ) {
    // Taken before the version is read: a write answered after this outdates what is built now.
    const checked = checkpoint(pages);
    const found = await personByUsername(db, request.params.username);
    if (!found) return notFound(reply);
    const copy = publicCopy(pages, baseUrl, request, { version: found.version, checked, space: 'page\n' });
    const cached = () => reply.headers(policy).header('etag', copy.etag).header('cache-control', 'public, no-cache');
    if (copy.notModified) return cached().code(304).send();
    let body = copy.kept?.body;
    if (!body) {
      const built = await build(found.person);
      if (built === undefined) return notFound(reply);
      body = Buffer.from(built);
    }
    void cached().type(HTML);
    copy.keep({ type: HTML, body, link: undefined }, reply.getHeaders(), request.routeOptions.url ?? request.url);
    return reply.send(body);
  }

  /** The one `cursor` a profile page takes, checked before anything is read. */
  function cursorOf(request: FastifyRequest): { cursor: string | undefined } | { error: string } {
    const query = request.query as Record<string, unknown>;
    const cursor = query.cursor;
    if (cursor === undefined) return { cursor: undefined };
    try {
      if (typeof cursor !== 'string') throw new AppError('invalid_request', 'Give one cursor.');
      cursors.decode(cursor);
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
    return sendPublicHtml(request, reply, async (person) => {
      const page = await profileEntries(db, baseUrl, person, given.cursor, cursors);
      const later = given.cursor !== undefined;
      const next = page.next ? `${personLinks(baseUrl, person.username).profile}?cursor=${page.next}` : undefined;
      const place = later ? undefined : await latestPublicPlace(db, person, cursors);
      return profileHtml({ baseUrl, person, entries: page.items, next, later, place, basemap: config.mapStyle });
    });
  });

  // Before `/@:username/:id`: a post id is never "search" (ids are ULIDs), and a static segment wins.
  app.get<{ Params: { username: string } }>('/@:username/search', hide, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const q = typeof query.q === 'string' ? query.q : '';
    const given = cursorOf(request);
    if ('error' in given) return sendPlain(reply, 400, badRequestHtml(given.error));
    // A query that is not a search is a 400 page before anything is read.
    const refused = q === '' ? undefined : refusalOf(q);
    if (refused) return sendPlain(reply, 400, badRequestHtml(refused));
    return sendPublicHtml(request, reply, async (person) => {
      if (q === '') return publicSearchHtml({ baseUrl, person, q, found: undefined, next: undefined });
      const page = await search(db, baseUrl, cursors, publicSearcher(person, {}), {
        q,
        count: PROFILE_PAGE_SIZE,
        cursor: given.cursor,
      });
      const profile = personLinks(baseUrl, person.username).profile;
      const next = page.next
        ? `${profile}/search?${new URLSearchParams({ q, cursor: page.next }).toString()}`
        : undefined;
      return publicSearchHtml({ baseUrl, person, q, found: page.items, next });
    });
  });

  // A hashtag's page: the person's public posts holding the tag (docs/web-public.md "Hashtags").
  app.get<{ Params: { username: string; tag: string } }>('/@:username/tagged/:tag', hide, async (request, reply) => {
    const { tag } = request.params;
    const given = cursorOf(request);
    if ('error' in given) return sendPlain(reply, 400, badRequestHtml(given.error));
    if (!isTag(tag)) {
      return sendPlain(reply, 400, badRequestHtml(`"#${tag}" is not a hashtag: a tag is letters, digits and _.`));
    }
    const refused = refusalOf(tagQuery(tag));
    if (refused) return sendPlain(reply, 400, badRequestHtml(refused));
    return sendPublicHtml(request, reply, async (person) => {
      const page = await taggedEntries(db, baseUrl, person, tag, given.cursor, cursors);
      const next = page.next ? `${tagUrl(baseUrl, person.username, tag)}?cursor=${page.next}` : undefined;
      return taggedHtml({ baseUrl, person, tag, entries: page.items, next, later: given.cursor !== undefined });
    });
  });

  // A public medium in the viewer (docs/web-public.md "The media viewer").
  app.get<{ Params: { username: string; id: string } }>('/@:username/media/:id', hide, async (request, reply) => {
    return sendPublicHtml(request, reply, async (person) => {
      const medium = await publicMediumOf(db, baseUrl, person, request.params.id);
      if (!medium) return undefined;
      const around = await neighbourIds(db, person.id, medium, 'public');
      return publicMediumHtml({ config, person, medium, ...around });
    });
  });

  app.get<{ Params: { username: string; id: string } }>('/@:username/:id', hide, async (request, reply) => {
    return sendPublicHtml(request, reply, async (person) => {
      const entry = await publicEntry(db, baseUrl, person, request.params.id);
      return entry ? postHtml(baseUrl, person, entry) : undefined;
    });
  });
}
