// Views: saved queries over one person's items (docs/api.md "Objects": view). The access rule,
// for every view route (docs/api-views.md):
//
// - Seeing a view. A public view is anyone's to read, token or not, and shows only public
//   items, even to its owner. A private view, and the private items in it, are for its owner's
//   token holding `get_views` and `get_private_scope` (docs/api.md: `get_private_scope` reads
//   "private views"): no token is 401, the owner's token without one of the two is 401
//   `insufficient_scope` naming it, another person's token gets the same 404 as a missing id,
//   exactly as for a private item by id.
// - Changing or deleting a view needs `manage_views` and that the token sees the view: only
//   the owner's, else 404 like a missing id; a private one (or one becoming private) also needs
//   what seeing it needs, else 401 `insufficient_scope`. Every answer that shows a private view
//   (creating, changing) needs it for the same reason, and a token that cannot see a view cannot
//   delete it either.
import type { Db } from '../db/database.ts';
import { insufficientScope, unauthorized, type Auth } from '../core/caller.ts';
import { AppError, notFound, type FieldError, invalid } from '../core/errors.ts';
import type { Cursors } from '../core/cursors.ts';
import { ownerById, toPageQuery } from '../items/items.logic.ts';
import type { Audience, ItemTable, PageQuery } from '../items/items.repo.ts';
import { newId } from '../lib/ids.ts';
import { msToSeconds, nowMs, secondsToMs } from '../lib/time.ts';
import { checkedBox } from '../lib/box.ts';
import { servedPlaceFilter } from '../privacy/served-box.ts';
import { publicPlacesOf } from '../privacy/places.ts';
import { findUserById } from '../users/users.repo.ts';
import { toViewItem, type ViewItem } from './views.items.ts';
import { mergePages } from './merge.ts';
import {
  countViewRows,
  deleteViewRow,
  findViewRow,
  insertViewRow,
  listViewRows,
  replaceViewRow,
  selectViewPage,
  type StoredFilters,
  type ViewRow,
} from './views.repo.ts';
import { VIEWS_PER_USER_MAX, type Filters, type View, type ViewInput } from './views.schemas.ts';
import type { CollectionParams, Scope } from '../items/items.schemas.ts';
import { readableScopes, requirePrivateReads } from '../items/access.ts';

export type Kind = ItemTable;
export const ALL_KINDS: Kind[] = ['posts', 'media', 'locations'];

const noSuchView = () => notFound('No such view.');

function toStoredFilters(filters: Filters): StoredFilters {
  const stored: StoredFilters = {};
  if (filters.since_time !== undefined) stored.sinceMs = secondsToMs(filters.since_time);
  if (filters.until_time !== undefined) stored.untilMs = secondsToMs(filters.until_time);
  if (filters.bbox) stored.bbox = filters.bbox as StoredFilters['bbox'];
  if (filters.scope) stored.scope = filters.scope;
  if (filters.sources) stored.sources = filters.sources;
  if (filters.text !== undefined) stored.text = filters.text;
  return stored;
}

function toFilters(stored: StoredFilters): Filters {
  const filters: Filters = {};
  if (stored.sinceMs !== undefined) filters.since_time = msToSeconds(stored.sinceMs);
  if (stored.untilMs !== undefined) filters.until_time = msToSeconds(stored.untilMs);
  if (stored.bbox) filters.bbox = stored.bbox;
  if (stored.scope) filters.scope = stored.scope;
  if (stored.sources) filters.sources = stored.sources;
  if (stored.text !== undefined) filters.text = stored.text;
  return filters;
}

function storedFilters(row: ViewRow): StoredFilters {
  return JSON.parse(row.filters) as StoredFilters;
}

function toView(row: ViewRow, username: string): View {
  return {
    id: row.id,
    username,
    name: row.name,
    description: row.description,
    kinds: JSON.parse(row.kinds) as Kind[],
    filters: toFilters(storedFilters(row)),
    scope: row.scope,
    created_at: msToSeconds(row.created_at),
    updated_at: msToSeconds(row.updated_at),
  };
}

/** What the body schema cannot say about a whole view. */
function viewProblems(view: { name: string; filters: Filters; scope: Scope }): FieldError[] {
  const errors: FieldError[] = [];
  if (view.name.trim() === '') errors.push({ path: 'body/name', message: 'must not be blank' });
  const { since_time: since, until_time: until, bbox } = view.filters;
  if (since !== undefined && until !== undefined && since >= until) {
    errors.push({ path: 'body/filters/until_time', message: 'must be after since_time' });
  }
  if (bbox) {
    if (!checkedBox(bbox)) {
      errors.push({
        path: 'body/filters/bbox',
        message: 'must be [min_lon, min_lat, max_lon, max_lat] in degrees, with min_lat <= max_lat',
      });
    }
  }
  if (view.scope === 'public' && view.filters.scope === 'private') {
    errors.push({ path: 'body/filters/scope', message: 'a public view only ever shows public items' });
  }
  return errors;
}

function check(view: { name: string; filters: Filters; scope: Scope }): void {
  const errors = viewProblems(view);
  if (errors.length > 0) {
    throw invalid('The view is invalid', errors);
  }
}

/** What seeing one's own private view takes: both read permissions, each named when missing. */
function checkSeesPrivate(auth: Auth): void {
  if (!auth.permissions.has('get_views')) throw insufficientScope('get_views');
  requirePrivateReads(auth);
}

/** Writing a view that is or becomes private needs what seeing it needs. */
function checkPrivateWrite(auth: Auth, ...scopes: Scope[]): void {
  if (scopes.includes('private')) checkSeesPrivate(auth);
}

export async function listViews(db: Db, auth: Auth): Promise<View[]> {
  const owner = await ownerById(db, auth.userId);
  const scopes = readableScopes(auth);
  return (await listViewRows(db, owner.id, scopes)).map((row) => toView(row, owner.username));
}

export async function createView(db: Db, auth: Auth, input: ViewInput & { name: string }): Promise<View> {
  const owner = await ownerById(db, auth.userId);
  const scope = input.scope ?? 'private';
  const filters = input.filters ?? {};
  checkPrivateWrite(auth, scope);
  check({ name: input.name, filters, scope });
  if ((await countViewRows(db, owner.id)) >= VIEWS_PER_USER_MAX) {
    throw new AppError('too_many_views', `A person keeps at most ${VIEWS_PER_USER_MAX} views; delete one first.`);
  }
  const now = nowMs();
  const row: ViewRow = {
    user_id: owner.id,
    id: newId(),
    name: input.name.trim(),
    description: input.description ?? '',
    kinds: JSON.stringify(input.kinds ?? ALL_KINDS),
    filters: JSON.stringify(toStoredFilters(filters)),
    scope,
    created_at: now,
    updated_at: now,
  };
  await insertViewRow(db, row);
  return toView(row, owner.username);
}

/** The caller's own view, or the same 404 as for a missing one. */
async function ownViewRow(db: Db, auth: Auth, id: string): Promise<ViewRow> {
  const row = await findViewRow(db, id);
  if (!row || row.user_id !== auth.userId) throw noSuchView();
  return row;
}

export async function updateView(db: Db, auth: Auth, id: string, change: ViewInput): Promise<View> {
  const owner = await ownerById(db, auth.userId);
  const current = await ownViewRow(db, auth, id);
  const scope = change.scope ?? current.scope;
  checkPrivateWrite(auth, current.scope, scope);
  const filters = change.filters ?? toFilters(storedFilters(current));
  const name = change.name ?? current.name;
  check({ name, filters, scope });
  const row: ViewRow = {
    ...current,
    name: name.trim(),
    description: change.description ?? current.description,
    kinds: change.kinds ? JSON.stringify(change.kinds) : current.kinds,
    filters: JSON.stringify(toStoredFilters(filters)),
    scope,
    updated_at: Math.max(nowMs(), current.updated_at),
  };
  await replaceViewRow(db, row);
  return toView(row, owner.username);
}

export async function deleteView(db: Db, auth: Auth, id: string): Promise<void> {
  const current = await ownViewRow(db, auth, id);
  checkPrivateWrite(auth, current.scope);
  if (!(await deleteViewRow(db, auth.userId, id))) throw noSuchView();
}

/** The access rule of the header comment, for reading one view. */
function checkRead(row: ViewRow, auth: Auth | undefined): void {
  if (row.scope === 'public') return;
  if (!auth) throw unauthorized();
  if (auth.userId !== row.user_id) throw noSuchView();
  checkSeesPrivate(auth);
}

/**
 * Whose items a view may show, through the shared scope rule: a public view, its owner's
 * public items; a private one (read only by its owner with `get_private_scope`), its owner's
 * items of the scope its filter names, or of both (the viewer rule, narrowed to the owner by
 * the view's own filter).
 */
function audienceOf(row: ViewRow, filters: StoredFilters): Audience {
  if (row.scope === 'public') return { owner: row.user_id, scope: 'public' };
  if (filters.scope) return { owner: row.user_id, scope: filters.scope };
  return { viewer: row.user_id };
}

/** The page the collection parameters ask for, inside the view's own time range. */
function pageWithin(params: CollectionParams, filters: StoredFilters, cursors: Cursors): PageQuery {
  const page = toPageQuery(params, cursors);
  const tighter = (a: number | undefined, b: number | undefined, pick: (x: number, y: number) => number) =>
    a === undefined ? b : b === undefined ? a : pick(a, b);
  return {
    ...page,
    sinceMs: tighter(page.sinceMs, filters.sinceMs, Math.max),
    untilMs: tighter(page.untilMs, filters.untilMs, Math.min),
  };
}

export interface ViewWithItems extends View {
  items: ViewItem[];
}

/**
 * GET /views/<id>: the view and one page of its items, merged across its kinds in (time, id)
 * order. Each kind is read as its own keyset page from the same cursor (at most `count + 1`
 * rows each, so a deep page costs what the first does); the merge keeps the first `count`.
 * The cursor is the key of the last item kept, so the next page starts right after it in
 * every kind: every item comes exactly once.
 */
export async function readView(
  db: Db,
  baseUrl: string,
  id: string,
  auth: Auth | undefined,
  params: CollectionParams,
  cursors: Cursors,
): Promise<{ view: ViewWithItems; next: string | undefined; ownerId: string }> {
  const row = await findViewRow(db, id);
  if (!row) throw noSuchView();
  checkRead(row, auth);
  const owner = await findUserById(db, row.user_id);
  if (!owner) throw noSuchView();
  const filters = storedFilters(row);
  const audience = audienceOf(row, filters);
  const page = pageWithin(params, filters, cursors);
  const kinds = JSON.parse(row.kinds) as Kind[];
  // Judged where each item is served: a public one rounded to the owner's precision, so what a
  // page holds, its cursor and whether there is a next page tell nothing finer (docs/privacy.md).
  const box = filters.bbox && checkedBox(filters.bbox);
  const places = box && (await publicPlacesOf(db, row.user_id));
  const place = box && places && servedPlaceFilter(box, places.precisionM, places.hides);
  const results = await Promise.all(
    kinds.map((kind) => selectViewPage(db, kind, audience, page, filters, row.user_id, place)),
  );
  const merged = mergePages(results, page.order, (tagged) => tagged.row).rows;
  const kept = merged.slice(0, page.count);
  const more = merged.length > page.count || results.some((result) => result.more);
  const last = kept.at(-1);
  // A public view is one answer for everyone, its owner included (the public copies' hashes);
  // only a private view, which only its owner reads, shows the originals'.
  const byOwner = row.scope === 'private';
  const items = await toViewItem(db, { baseUrl, owner: { id: owner.id, username: owner.username }, byOwner }, kept);
  return {
    view: { ...toView(row, owner.username), items },
    next: more && last ? cursors.encode(last.row) : undefined,
    ownerId: owner.id,
  };
}
