import type { Db } from '../db/database.ts';
import type { Auth } from '../http/auth.ts';
import { badRequest, type FieldError } from '../http/errors.ts';
import { pageOf, readItem, toPageQuery, type CollectionParams, type Page, type Scope } from '../items/items.logic.ts';
import type { ListContext } from '../items/items.routes.ts';
import { newId } from '../lib/ids.ts';
import { msToSeconds, nowMs } from '../lib/time.ts';
import { roundPoint } from '../locations/precision.ts';
import { getSettings } from '../settings/settings.logic.ts';
import { findUserById } from '../users/users.repo.ts';
import { insertPost, ownMediumIds, selectPostPage, type PostRow } from './posts.repo.ts';
import { TEXT_MAX } from './posts.schemas.ts';

export interface Post {
  id: string;
  username: string;
  text: string;
  scope: Scope;
  time: number;
  created_at: number;
  media_ids: string[];
  location: { lat: number; lon: number } | null;
  source: string | null;
  deliveries?: never[];
}

export interface PostsParams extends CollectionParams {
  format?: 'json' | 'atom' | 'jsonfeed' | undefined;
}

export interface NewPost {
  text: string;
  groups: string[];
  scope?: Scope | undefined;
  media_ids?: string[] | undefined;
  location?: { lat: number; lon: number } | null | undefined;
}

/** The API object; a public post's location is served at the owner's precision, like a public point. */
export function toPost(row: PostRow, username: string, precisionM: number): Post {
  const exact = row.lat === null || row.lon === null ? null : { lat: row.lat, lon: row.lon };
  return {
    id: row.id,
    username,
    text: row.text,
    scope: row.scope,
    time: msToSeconds(row.time),
    created_at: msToSeconds(row.created_at),
    media_ids: JSON.parse(row.media_ids) as string[],
    location: exact && row.scope === 'public' ? roundPoint(exact.lat, exact.lon, precisionM) : exact,
    source: row.source,
  };
}

/** The owner's location precision, read only when a row has a location to round. */
async function precisionFor(db: Db, userId: string, rows: PostRow[]): Promise<number> {
  const needed = rows.some((row) => row.scope === 'public' && row.lat !== null);
  return needed ? (await getSettings(db, userId)).publicLocationPrecisionM : 0;
}

export async function listPosts(db: Db, ctx: ListContext<PostsParams>): Promise<Page<Post>> {
  const result = await selectPostPage(db, { owner: ctx.owner.id, scope: ctx.scope }, toPageQuery(ctx.query));
  const precision = await precisionFor(db, ctx.owner.id, result.rows);
  return pageOf(result, (row) => toPost(row, ctx.owner.username, precision));
}

export async function getPost(db: Db, id: string, auth: Auth | undefined): Promise<Post> {
  const row = await readItem(db, 'posts', id, auth);
  const owner = await findUserById(db, row.user_id);
  return toPost(row, owner?.username ?? '', await precisionFor(db, row.user_id, [row]));
}

/**
 * POST /posts (API.md "POST /posts"): stores the post in the caller's collection. Groups and
 * delivery belong to the services; until they exist, every group id is unknown.
 */
export async function createPost(db: Db, userId: string, input: NewPost): Promise<Post> {
  const errors: FieldError[] = [];
  const text = input.text.trim();
  const length = [...text].length;
  if (length < 1 || length > TEXT_MAX) {
    errors.push({ path: 'body/text', message: `must be 1 to ${TEXT_MAX} characters after trimming` });
  }
  input.groups.forEach((_group, index) => errors.push({ path: `body/groups/${index}`, message: 'unknown group' }));
  const mediaIds = input.media_ids ?? [];
  const own = await ownMediumIds(db, userId, mediaIds);
  mediaIds.forEach((id, index) => {
    if (!own.has(id)) errors.push({ path: `body/media_ids/${index}`, message: 'unknown medium' });
  });
  if (errors.length > 0) {
    throw badRequest(`The post is invalid: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}.`, errors);
  }
  const { defaultScopes } = await getSettings(db, userId);
  const now = nowMs();
  const row: PostRow = {
    user_id: userId,
    id: newId(),
    scope: input.scope ?? defaultScopes.posts,
    time: now,
    created_at: now,
    text,
    media_ids: JSON.stringify(mediaIds),
    lat: input.location?.lat ?? null,
    lon: input.location?.lon ?? null,
    source: null,
  };
  await insertPost(db, row);
  const owner = await findUserById(db, userId);
  // The owner sees the exact post (precision 0), deliveries included: none, with no groups.
  return { ...toPost(row, owner?.username ?? '', 0), deliveries: [] };
}
