// What posts, media and locations share above the SQL: collection parameters in API units,
// the page and its cursor (src/core/cursors.ts), the `Link` header. Who may see an
// item is src/items/access.ts.
import type { Db } from '../db/database.ts';
import { unauthorized } from '../core/caller.ts';
import type { Cursors } from '../core/cursors.ts';
import { notFound, invalid } from '../core/errors.ts';
import { secondsToMs, TIME_LIMIT_MESSAGE, withinTimeLimit } from '../lib/time.ts';
import { COUNT_MAX, type CollectionParams } from './items.schemas.ts';
import type { PageVersion } from './public-pages.ts';
import { findUserById, findUserByUsername } from '../users/users.repo.ts';
import type { PageQuery } from './items.repo.ts';

/**
 * Collection parameters in database units. The schema has checked them, but Ajv's type coercion
 * lets a string like "1e400" through as Infinity (it coerces after the type check), so the
 * ranges are checked again here. An empty time window is not an error: it is just empty.
 */
export function toPageQuery(params: CollectionParams, cursors: Cursors): PageQuery {
  const errors: { path: string; message: string }[] = [];
  if (!Number.isSafeInteger(params.count) || params.count < 1 || params.count > COUNT_MAX) {
    errors.push({ path: 'querystring/count', message: `must be a whole number from 1 to ${COUNT_MAX}` });
  }
  for (const name of ['since_time', 'until_time'] as const) {
    const value = params[name];
    if (value !== undefined && !withinTimeLimit(value)) {
      errors.push({ path: `querystring/${name}`, message: TIME_LIMIT_MESSAGE });
    }
  }
  if (errors.length > 0) {
    throw invalid('The request is invalid', errors);
  }
  return {
    count: params.count,
    order: params.order,
    sinceMs: params.since_time === undefined ? undefined : secondsToMs(params.since_time),
    untilMs: params.until_time === undefined ? undefined : secondsToMs(params.until_time),
    after: params.cursor === undefined ? undefined : cursors.decode(params.cursor),
  };
}

/** A page of API objects, and the cursor of the next page when there is one. */
export interface Page<T> {
  items: T[];
  next: string | undefined;
}

export function pageOf<R extends { time: number; id: string }, T>(
  result: { rows: R[]; more: boolean },
  map: (row: R) => T,
  cursors: Cursors,
): Page<T> {
  const last = result.rows.at(-1);
  return { items: result.rows.map(map), next: result.more && last ? cursors.encode(last) : undefined };
}

/**
 * RFC 8288 `Link` to the next page: the same URL with the cursor replaced, absolute so a client
 * can follow it as is (as GitHub and Mastodon do).
 */
export function nextLink(baseUrl: string, requestUrl: string, cursor: string): string {
  const url = new URL(requestUrl, baseUrl);
  const target = new URL(url.pathname, baseUrl);
  for (const [name, value] of url.searchParams) if (name !== 'cursor') target.searchParams.append(name, value);
  target.searchParams.set('cursor', cursor);
  return `<${target.href}>; rel="next"`;
}

/**
 * The owner of a public collection by username, with the version of their public pages
 * (src/items/public-pages.ts); 404 when there is no such user.
 */
export async function ownerByUsername(
  db: Db,
  username: string,
): Promise<{ id: string; username: string; version: PageVersion }> {
  const row = await findUserByUsername(db, username);
  if (!row) throw notFound(`There is no user "${username}".`);
  const version = { userId: row.id, itemsVersion: row.items_version, updatedAt: row.updated_at };
  return { id: row.id, username: row.username, version };
}

/** The calling token's owner. */
export async function ownerById(db: Db, userId: string): Promise<{ id: string; username: string }> {
  const row = await findUserById(db, userId);
  // A valid token for a deleted user: the token should have died with the account.
  if (!row) throw unauthorized();
  return { id: row.id, username: row.username };
}
