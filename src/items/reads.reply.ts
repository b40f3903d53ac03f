// How the read routes of src/items/reads.routes.ts answer with a page of items: the JSON
// array or another representation, a streamed download, or a public page with its ETag and
// the copy kept of it (when a copy is used or kept: src/items/public-pages.ts).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { nextLink } from './items.logic.ts';
import type { ItemKind, ListContext } from './kinds.ts';
import { publicCopy, type BuiltPage, type Checked, type PageCache, type PageVersion } from './public-pages.ts';
import type { CollectionParams } from './items.schemas.ts';

/** Other representations are chosen by Accept as well as `format` (docs/api.md); CORS may have said Origin. */
function varyOnAccept(reply: FastifyReply) {
  const vary = reply.getHeader('vary');
  const names = typeof vary === 'string' ? vary.split(',').map((name) => name.trim()) : [];
  if (!names.some((name) => name.toLowerCase() === 'accept')) {
    void reply.header('vary', [...names.filter(Boolean), 'Accept'].join(', '));
  }
}

/** The headers a built page goes out with: its type and its next page. */
function describe(reply: FastifyReply, page: BuiltPage) {
  if (page.link) void reply.header('link', page.link);
  void reply.type(page.type);
}

export function pageReplies<Q extends CollectionParams, T>(
  kind: ItemKind<Q, T>,
  { baseUrl, pages }: { baseUrl: string; pages?: PageCache | undefined },
) {
  const vary = (reply: FastifyReply) => {
    if (kind.render) varyOnAccept(reply);
  };

  /** The page: the JSON array as text, or the representation the request asks for. */
  async function buildPage(request: FastifyRequest, reply: FastifyReply, ctx: ListContext<Q>): Promise<BuiltPage> {
    const page = await kind.list(ctx);
    const link = page.next ? nextLink(baseUrl, request.url, page.next) : undefined;
    const rendered = kind.render ? await kind.render(request.headers.accept, page, ctx) : undefined;
    if (rendered) return { type: rendered.type, body: Buffer.from(rendered.body), link };
    // The route's own serializer, as fastify would use for `return page.items` (its types
    // want an object, but the serializer is compiled for the array the schema describes).
    const json = reply.serializeInput(
      page.items as unknown as Record<string, unknown>,
      '200',
      'application/json',
    ) as string;
    return { type: 'application/json; charset=utf-8', body: json, link };
  }

  /** A download, when the kind has one and the request asks for it; false otherwise. */
  async function sendDownload(request: FastifyRequest, reply: FastifyReply, ctx: ListContext<Q>) {
    const download = await kind.download?.(request.headers.accept, ctx);
    if (!download) return false;
    vary(reply);
    void reply
      .type(download.type)
      .header('content-disposition', `attachment; filename="${download.filename}"`)
      .header('cache-control', 'no-store');
    return reply.send(download.body);
  }

  /** The token owner's page (or download), built for this request. */
  async function sendPage(request: FastifyRequest, reply: FastifyReply, ctx: ListContext<Q>) {
    const streamed = await sendDownload(request, reply, ctx);
    if (streamed) return streamed;
    const page = await buildPage(request, reply, ctx);
    vary(reply);
    describe(reply, page);
    // Bytes or text with its type set, so fastify sends them as they are instead of serializing them again.
    return reply.send(page.body);
  }

  /**
   * A public page for anyone: 304 when the client has this version, else the copy in memory,
   * else built, and kept with the headers it goes out with (src/items/public-pages.ts).
   */
  async function sendPublicPage(
    request: FastifyRequest,
    reply: FastifyReply,
    ctx: ListContext<Q>,
    { version, checked }: { version: PageVersion; checked: Checked },
  ) {
    const streamed = await sendDownload(request, reply, ctx);
    if (streamed) return streamed;
    const copy = publicCopy(pages, baseUrl, request, { version, checked });
    void reply.header('etag', copy.etag).header('cache-control', 'public, no-cache');
    vary(reply);
    if (copy.notModified) return reply.code(304).send();
    const page = copy.kept ?? (await buildPage(request, reply, ctx));
    describe(reply, page);
    copy.keep(page, reply.getHeaders(), request.routeOptions.url ?? request.url);
    return reply.send(page.body);
  }

  return { sendPage, sendPublicPage };
}
