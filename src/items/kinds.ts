// What a kind of item (posts, media, locations) tells the shared read routes about itself
// (src/items/reads.routes.ts, docs/api.md "Collections"): its table, its schemas, how to
// list a page, read one by id, and the other representations it offers. Nothing here knows
// HTTP: a representation is chosen from the Accept header's text, not from a request object.
import type { TObject } from 'typebox';
import type { Auth } from '../core/caller.ts';
import type { Cursors } from '../core/cursors.ts';
import type { Page } from './items.logic.ts';
import type { ItemTable } from './items.repo.ts';
import type { CollectionParams, Scope } from './items.schemas.ts';

export interface ListContext<Q> {
  owner: { id: string; username: string };
  scope: Scope;
  query: Q;
  /** Whether the owner is the caller (the token's collections) or anyone (`/public/<username>`). */
  byOwner: boolean;
  /**
   * Whether the reader sees the items exactly: the owner reading with `get_private_scope`
   * (src/privacy/places.ts `readsExactly`). Otherwise public items are shown as strangers see them.
   */
  exact: boolean;
  /** The server's collection cursors (src/core/cursors.ts). */
  cursors: Cursors;
}

/** Another representation of a page (GeoJSON, GPX, Atom, JSON Feed): a content type and its bytes. */
export interface Rendered {
  type: string;
  body: string;
}

/** A streamed answer: its type, a filename to save it under, and the bytes as they come. */
export interface Streamed {
  type: string;
  filename: string;
  body: NodeJS.ReadableStream;
}

export interface ItemKind<Q extends CollectionParams, T> {
  table: ItemTable;
  tag: string;
  /** `$id` of the object schema, added by the kind's plugin. */
  objectRef: string;
  /** The querystring schema: the collection parameters and the kind's own. */
  query: TObject;
  /** Other representations of a collection, for the OpenAPI document: content type -> description. */
  representations?: Record<string, string>;
  list(ctx: ListContext<Q>): Promise<Page<T>>;
  byId(id: string, auth: Auth | undefined): Promise<T>;
  /** A representation other than the JSON array, when `accept` (the Accept header) or the query asks for one. */
  render?(accept: string | undefined, page: Page<T>, ctx: ListContext<Q>): Promise<Rendered | undefined>;
  /** The whole collection as one streamed answer, when the query asks for it (`all=true`). */
  download?(accept: string | undefined, ctx: ListContext<Q>): Promise<Streamed | undefined>;
}

/**
 * The representation asked for: the `format` parameter wins; else the first of `byAccept`
 * whose media type the Accept header names (list a longer type before one it starts with);
 * else the JSON array.
 */
export function chosenFormat<F extends string>(
  acceptHeader: string | undefined,
  format: F | 'json' | undefined,
  byAccept: readonly (readonly [mediaType: string, format: F])[],
): F | 'json' {
  if (format) return format;
  const accept = acceptHeader ?? '';
  return byAccept.find(([mediaType]) => accept.includes(mediaType))?.[1] ?? 'json';
}
