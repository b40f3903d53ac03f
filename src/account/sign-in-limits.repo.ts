// SQL for the sign-in counters (docs/sign-in-limits.md). Each reservation is ONE statement: an
// upsert whose update runs only while the key has room. PostgreSQL locks the row for the
// conflicting insert and evaluates the condition on its newest version; SQLite runs one
// statement at a time. Either way two requests cannot both take the last place, in one process
// or in several sharing the database, and no lock is held between statements.
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';

/** What a reservation returns, to give it back later (only within the same window). */
export interface Reserved {
  key: string;
  windowStart: number;
}

const t = {
  windowStart: sql.ref<number>('sign_in_limits.window_start'),
  failures: sql.ref<number>('sign_in_limits.failures'),
  delayMs: sql.ref<number>('sign_in_limits.delay_ms'),
  nextAt: sql.ref<number>('sign_in_limits.next_at'),
  expiresAt: sql.ref<number>('sign_in_limits.expires_at'),
};

/**
 * A budget: at most `limit` attempts per window of `windowMs`, the window starting with its
 * first attempt. Undefined when the budget is spent.
 */
export async function reserveBudget(
  db: Db,
  key: string,
  { now, limit, windowMs }: { now: number; limit: number; windowMs: number },
): Promise<Reserved | undefined> {
  const over = sql<boolean>`${t.expiresAt} <= ${now}`;
  const row = await db
    .insertInto('sign_in_limits')
    .values({ key_hash: key, window_start: now, failures: 1, delay_ms: 0, next_at: 0, expires_at: now + windowMs })
    .onConflict((oc) =>
      oc
        .column('key_hash')
        .doUpdateSet({
          window_start: sql<number>`case when ${over} then ${now} else ${t.windowStart} end`,
          failures: sql<number>`case when ${over} then 1 else ${t.failures} + 1 end`,
          expires_at: sql<number>`case when ${over} then ${now + windowMs} else ${t.expiresAt} end`,
        })
        .where(sql<boolean>`${over} or ${t.failures} < ${limit}`),
    )
    .returning('window_start')
    .executeTakeFirst();
  return row && { key, windowStart: row.window_start };
}

/**
 * A throttle: `free` attempts, then each further one waits after the one before it, first
 * `baseMs`, then twice as long each time up to `maxMs`. A run of attempts ends after `quietMs`
 * without one. Undefined while the wait lasts.
 */
export async function reserveThrottled(
  db: Db,
  key: string,
  { now, free, baseMs, maxMs, quietMs }: { now: number; free: number; baseMs: number; maxMs: number; quietMs: number },
): Promise<Reserved | undefined> {
  const over = sql<boolean>`${t.expiresAt} <= ${now}`;
  const first = free <= 1 ? baseMs : 0;
  const delay = sql<number>`case
    when ${over} then ${first}
    when ${t.failures} + 1 < ${free} then 0
    when ${t.delayMs} = 0 then ${baseMs}
    when ${t.delayMs} * 2 > ${maxMs} then ${maxMs}
    else ${t.delayMs} * 2 end`;
  const row = await db
    .insertInto('sign_in_limits')
    .values({
      key_hash: key,
      window_start: now,
      failures: 1,
      delay_ms: first,
      next_at: first === 0 ? 0 : now + first,
      expires_at: now + quietMs,
    })
    .onConflict((oc) =>
      oc
        .column('key_hash')
        .doUpdateSet({
          window_start: sql<number>`case when ${over} then ${now} else ${t.windowStart} end`,
          failures: sql<number>`case when ${over} then 1 else ${t.failures} + 1 end`,
          delay_ms: delay,
          // No wait, no time: requests that took their time a moment apart may run in either order.
          next_at: sql<number>`case when ${delay} = 0 then 0 else ${now} + ${delay} end`,
          expires_at: now + quietMs,
        })
        .where(sql<boolean>`${over} or ${t.nextAt} <= ${now}`),
    )
    .returning('window_start')
    .executeTakeFirst();
  return row && { key, windowStart: row.window_start };
}

/** Gives a reserved attempt back (it succeeded, or another key refused), if its window still runs. */
export async function release(db: Db, reserved: Reserved): Promise<void> {
  await db
    .updateTable('sign_in_limits')
    .set({ failures: sql<number>`failures - 1` })
    .where('key_hash', '=', reserved.key)
    .where('window_start', '=', reserved.windowStart)
    .where('failures', '>', 0)
    .execute();
}

/** When a refused key lets the next attempt through: the end of its window, or of its wait. */
export async function refusedUntil(db: Db, key: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('sign_in_limits')
    .select(['expires_at', 'next_at', 'delay_ms'])
    .where('key_hash', '=', key)
    .executeTakeFirst();
  if (!row) return undefined;
  return row.delay_ms > 0 ? row.next_at : row.expires_at;
}

export async function purgeExpiredLimits(db: Db, now: number): Promise<number> {
  const result = await db.deleteFrom('sign_in_limits').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
