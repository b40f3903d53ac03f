import type { Db } from '../db/database.ts';
import type { Auth } from '../core/caller.ts';
import { type FieldError, invalid } from '../core/errors.ts';
import { pageOf, toPageQuery, type Page } from '../items/items.logic.ts';
import { readItem, readsExactly } from '../items/access.ts';
import { changeOwnItem, deleteOwnItem } from '../items/writes.logic.ts';
import { deleteResponsesNaming } from '../core/idempotency.repo.ts';
import type { ListContext } from '../items/kinds.ts';
import { newId } from '../lib/ids.ts';
import { msToSeconds, nowMs } from '../lib/time.ts';
import { EXACT_PLACES, placesForReader, type PublicPlaces } from '../privacy/places.ts';
import { getSettings } from '../settings/settings.logic.ts';
import { findUserById } from '../users/users.repo.ts';
import {
  deletePostLinks,
  insertPost,
  mediaInPosts,
  ownMediumScopes,
  selectPostPage,
  setPostText,
  type PostRow,
} from './posts.repo.ts';
import {
  TEXT_MAX,
  type Delivery,
  type NewPost,
  type Post,
  type PostChangeBody,
  type PostsParams,
} from './posts.schemas.ts';

/** Each post's deliveries by post id, for the owner's view of the post object. */
export type DeliveriesOf = (db: Db, userId: string, postIds: readonly string[]) => Promise<Map<string, Delivery[]>>;

/**
 * What a new post needs from deliveries. Services deliver posts, so posts/ knows deliveries
 * only through this, given by the composition root (src/app.ts passes
 * src/services/deliveries.logic.ts `postDeliveries`).
 */
export interface PostDeliveries {
  /** What is wrong with the `groups` of a new post (asked only when something else is wrong too). */
  groupErrors(db: Db, userId: string, groupIds: readonly string[]): Promise<FieldError[]>;
  /**
   * Inside the post's transaction: checks the groups (400 `The post is invalid` when one is not
   * the caller's), then one pending delivery and job per service of the groups.
   */
  enqueue(trx: Db, userId: string, post: Post, groupIds: readonly string[], now: number): Promise<Delivery[]>;
  of: DeliveriesOf;
  /** Puts a failed or cancelled delivery of the person's post back to pending and queues it. */
  retry(db: Db, userId: string, postId: string, serviceId: string, now: number): Promise<Delivery>;
  /** Inside a post's deletion: its deliveries and their queued jobs go with it. */
  forget(trx: Db, userId: string, postId: string): Promise<void>;
  /** Inside an edit of its text: each delivery sends the new text, or the edit (services/deliveries.edit.ts). */
  edited(trx: Db, userId: string, post: Post, now: number): Promise<void>;
}

/** How a new post is delivered. */
export interface DeliveryOptions {
  deliveries: PostDeliveries;
  /** Runs inside the post's transaction: stores the Idempotency-Key response with the post. */
  beforeCommit?: (trx: Db, post: Post) => Promise<void>;
}

/**
 * The API object; a public post's location is shown as `places` shows it (at the owner's
 * precision, none in a privacy zone; exact to the owner reading with `get_private_scope`), and its `media_ids` name only the media in `publicMedia` (the public ones), to everyone:
 * a medium made private after the post, or a post made public later, must not show a private
 * medium's id (docs/privacy.md).
 */
export function toPost(row: PostRow, username: string, places: PublicPlaces, publicMedia: ReadonlySet<string>): Post {
  const exact = row.lat === null || row.lon === null ? null : { lat: row.lat, lon: row.lon };
  const mediaIds = JSON.parse(row.media_ids) as string[];
  return {
    id: row.id,
    username,
    text: row.text,
    scope: row.scope,
    time: msToSeconds(row.time),
    created_at: msToSeconds(row.created_at),
    media_ids: row.scope === 'public' ? mediaIds.filter((id) => publicMedia.has(id)) : mediaIds,
    location: exact && row.scope === 'public' ? places.serve(exact.lat, exact.lon) : exact,
    // The service a post came from is one of the owner's services, a private object: strangers
    // get the original's address (`source_url`, public where it came from) but not the service.
    source: row.scope === 'public' && !places.exact ? null : row.source,
    source_url: row.source_url ?? null,
  };
}

/** Which media the public ones of these posts name are public (a post names its owner's media only). */
export async function publicMediaOf(db: Db, userId: string, rows: PostRow[]): Promise<Set<string>> {
  const named = rows.filter((row) => row.scope === 'public').flatMap((row) => JSON.parse(row.media_ids) as string[]);
  const scopes = await ownMediumScopes(db, userId, named);
  return new Set([...scopes].filter(([, scope]) => scope === 'public').map(([id]) => id));
}

/** A page of posts; the owner's own collections show each post's deliveries (`deliveriesOf`). */
export async function listPosts(
  db: Db,
  ctx: ListContext<PostsParams>,
  deliveriesOf: DeliveriesOf,
): Promise<Page<Post>> {
  const result = await selectPostPage(
    db,
    { owner: ctx.owner.id, scope: ctx.scope },
    toPageQuery(ctx.query, ctx.cursors),
  );
  const places = await placesForReader(db, ctx.owner.id, ctx.exact, result.rows);
  const media = await publicMediaOf(db, ctx.owner.id, result.rows);
  if (!ctx.byOwner) return pageOf(result, (row) => toPost(row, ctx.owner.username, places, media), ctx.cursors);
  // The owner's own collections show each post's deliveries (docs/api.md "Objects").
  const deliveries = await deliveriesOf(
    db,
    ctx.owner.id,
    result.rows.map((row) => row.id),
  );
  return pageOf(
    result,
    (row) => {
      // Added to the new object rather than spread into a copy of it: a page is 50 posts.
      const post = toPost(row, ctx.owner.username, places, media);
      post.deliveries = deliveries.get(row.id) ?? [];
      return post;
    },
    ctx.cursors,
  );
}

export async function getPost(db: Db, id: string, auth: Auth | undefined, deliveriesOf: DeliveriesOf): Promise<Post> {
  const row = await readItem(db, 'posts', id, auth);
  const owner = await findUserById(db, row.user_id);
  const media = await publicMediaOf(db, row.user_id, [row]);
  const places = await placesForReader(db, row.user_id, readsExactly(row.user_id, auth), [row]);
  const post = toPost(row, owner?.username ?? '', places, media);
  if (auth?.userId !== row.user_id) return post;
  return { ...post, deliveries: (await deliveriesOf(db, row.user_id, [row.id])).get(row.id) ?? [] };
}

/** A post's text, trimmed, and what is wrong with it. */
function checkedText(raw: string): { text: string; errors: FieldError[] } {
  const text = raw.trim();
  const length = [...text].length;
  if (length >= 1 && length <= TEXT_MAX) return { text, errors: [] };
  return { text, errors: [{ path: 'body/text', message: `must be 1 to ${TEXT_MAX} characters after trimming` }] };
}

/**
 * POST /posts/id/<id>: the owner changes the scope or the text. A new text goes on to every
 * delivery (services/deliveries.edit.ts): not yet made, it sends the new text; made, to the
 * services that take edits. 404 for a post that is not the caller's.
 */
export async function changePost(
  db: Db,
  id: string,
  change: PostChangeBody,
  auth: Auth,
  deliveries: PostDeliveries,
): Promise<Post> {
  const checked = change.text === undefined ? undefined : checkedText(change.text);
  if (checked && checked.errors.length > 0) throw invalid('The change is invalid', checked.errors);
  await db.transaction().execute(async (trx) => {
    await changeOwnItem(trx, 'posts', id, { scope: change.scope }, auth);
    if (checked && (await setPostText(trx, auth.userId, id, checked.text))) {
      await deliveries.edited(trx, auth.userId, await getPost(trx, id, auth, deliveries.of), nowMs());
    }
  });
  return getPost(db, id, auth, deliveries.of);
}

/**
 * POST /posts (docs/api.md "Writing"): stores the post in the caller's collection and, in the
 * same transaction, one pending delivery and one job per distinct service of the groups. A valid
 * post costs its transaction and nothing before it unless it names media or leaves its scope to
 * the settings: the groups are checked once, inside the transaction, where they are used.
 */
export async function createPost(
  db: Db,
  owner: { id: string; username: string },
  input: NewPost,
  delivery: DeliveryOptions,
): Promise<Post> {
  const userId = owner.id;
  const { text, errors: textErrors } = checkedText(input.text);
  const scope = input.scope ?? (await getSettings(db, userId)).defaultScopes.posts;
  const mediaIds = input.media_ids ?? [];
  const own = await ownMediumScopes(db, userId, mediaIds);
  const mediaErrors: FieldError[] = [];
  mediaIds.forEach((id, index) => {
    const path = `body/media_ids/${index}`;
    if (!own.has(id)) mediaErrors.push({ path, message: 'unknown medium' });
    // Refused rather than hidden: the person would see the medium missing from their public post.
    else if (scope === 'public' && own.get(id) === 'private') {
      mediaErrors.push({ path, message: 'is private; a public post can only show public media' });
    }
  });
  if (textErrors.length > 0 || mediaErrors.length > 0) {
    // Every fault at once, the groups' included.
    const groupErrors = await delivery.deliveries.groupErrors(db, userId, input.groups);
    throw invalid('The post is invalid', [...textErrors, ...groupErrors, ...mediaErrors]);
  }
  const now = nowMs();
  const row: PostRow = {
    user_id: userId,
    id: newId(),
    scope,
    time: now,
    created_at: now,
    text,
    media_ids: JSON.stringify(mediaIds),
    lat: input.location?.lat ?? null,
    lon: input.location?.lon ?? null,
    source: null,
  };
  // The owner sees the exact post (precision 0); the services get it as the owner wrote it.
  const post = toPost(row, owner.username, EXACT_PLACES, new Set(mediaIds));
  return db.transaction().execute(async (trx) => {
    await insertPost(trx, row);
    const deliveries = await delivery.deliveries.enqueue(trx, userId, post, input.groups, now);
    const created = { ...post, deliveries };
    await delivery.beforeCommit?.(trx, created);
    return created;
  });
}

/**
 * DELETE /posts/id/<id>: its delivery records and queued deliveries go with it, and the
 * Idempotency-Key records whose stored answer is this post; copies already delivered stay.
 */
export async function deletePost(db: Db, id: string, auth: Auth, deliveries: PostDeliveries): Promise<void> {
  await deleteOwnItem(db, 'posts', id, auth, async (trx) => {
    await deliveries.forget(trx, auth.userId, id);
    await deleteResponsesNaming(trx, auth.userId, id);
    await deletePostLinks(trx, auth.userId, id);
  });
}

/** Of these media of the caller's, those one of their posts shows (its card shows them). */
export function mediaShownInPosts(db: Db, auth: Auth, mediumIds: readonly string[]): Promise<Set<string>> {
  return mediaInPosts(db, auth.userId, mediumIds);
}
