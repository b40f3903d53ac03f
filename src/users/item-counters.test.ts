// The counters and version on a person's row (migration 0006) are kept by triggers: whatever
// writes the items (the routes, a batch with duplicates, plain SQL, a cascade), the counts equal
// count(*) and the version moves.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestUser, type TestApp } from '../../test/helpers.ts';
import { insertItems, KINDS, type Kind } from '../../test/items.ts';
import { tokenFor } from '../../test/tokens.ts';
import { accountTraces } from '../account-traces.ts';
import { deleteAccount } from './account-deletion.logic.ts';
import { mediaStorage } from '../media/media.storage.ts';
import { updateSettings } from '../settings/settings.logic.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const COLUMN = { posts: 'public_posts', media: 'public_media', locations: 'public_locations' } as const;

async function userRow(id: string) {
  return t.database.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

async function counted(userId: string, kind: Kind): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(*) as n from ${sql.table(kind)}
    where user_id = ${userId} and scope = 'public'`.execute(t.database.db);
  return Number(rows[0]?.n ?? 0);
}

async function expectCountersTrue(userId: string): Promise<void> {
  const row = await userRow(userId);
  for (const kind of KINDS) expect(Number(row?.[COLUMN[kind]]), kind).toBe(await counted(userId, kind));
}

async function version(userId: string): Promise<number> {
  return Number((await userRow(userId))?.items_version);
}

describe('item counters on the user row', () => {
  it('follow inserts, scope changes and deletes made with plain SQL, on every kind', async () => {
    const user = await createTestUser(t.database);
    for (const kind of KINDS) {
      const ids = await insertItems(t.database, kind, user.id, [
        { scope: 'public' },
        { scope: 'public' },
        { scope: 'private' },
      ]);
      await expectCountersTrue(user.id);
      await t.database.db.updateTable(kind).set({ scope: 'private' }).where('id', '=', ids[0]!).execute();
      await expectCountersTrue(user.id);
      await t.database.db.updateTable(kind).set({ scope: 'public' }).where('user_id', '=', user.id).execute();
      await expectCountersTrue(user.id);
      await t.database.db.deleteFrom(kind).where('id', 'in', ids.slice(1)).execute();
      await expectCountersTrue(user.id);
      expect(Number((await userRow(user.id))?.[COLUMN[kind]])).toBe(1);
    }
  });

  it('count only the points a batch stored, not its duplicates', async () => {
    const user = await createTestUser(t.database);
    await updateSettings(t.database.db, user.id, { defaultScopes: { locations: 'public' } });
    const token = await tokenFor(t, user, ['write_locations']);
    const point = { time: 1_700_000_000, lat: 52.52, lon: 13.405 };
    const post = (points: unknown[]) =>
      t.app.inject({
        method: 'POST',
        url: '/locations',
        headers: { authorization: `Bearer ${token}` },
        payload: points as object,
      });
    expect((await post([point, { ...point, time: point.time + 1 }])).json()).toEqual({ stored: 2, duplicates: 0 });
    expect((await post([point, point, { ...point, time: point.time + 2 }])).json()).toEqual({
      stored: 1,
      duplicates: 2,
    });
    await expectCountersTrue(user.id);
    expect(Number((await userRow(user.id))?.public_locations)).toBe(3);
  });

  it('leave other people alone, and go with the person', async () => {
    const [one, two] = [await createTestUser(t.database), await createTestUser(t.database)];
    await insertItems(t.database, 'posts', one.id, [{ scope: 'public' }]);
    await insertItems(t.database, 'posts', two.id, [{ scope: 'public' }, { scope: 'public' }]);
    await expectCountersTrue(one.id);
    await expectCountersTrue(two.id);
    await deleteAccount(t.database, one.id, accountTraces(mediaStorage(t.config)));
    expect(await userRow(one.id)).toBeUndefined();
    await expectCountersTrue(two.id);
  });

  it('move the version with every write of a public item and every change of precision or time zone, and not otherwise', async () => {
    const user = await createTestUser(t.database);
    let last = await version(user.id);
    const expectMoved = async (moved: boolean) => {
      const now = await version(user.id);
      if (moved) expect(now).toBeGreaterThan(last);
      else expect(now).toBe(last);
      last = now;
    };
    // Private items never show on a public page, so writing them must not show in its ETag.
    const [secret] = await insertItems(t.database, 'locations', user.id, [{ scope: 'private' }]);
    await expectMoved(false);
    await t.database.db.updateTable('locations').set({ lat: 1 }).where('id', '=', secret!).execute();
    await expectMoved(false);
    const [shown] = await insertItems(t.database, 'locations', user.id, [{ scope: 'public', time: 1_700_000_100_000 }]);
    await expectMoved(true);
    await t.database.db.updateTable('locations').set({ lat: 1 }).where('id', '=', shown!).execute();
    await expectMoved(true);
    await t.database.db.updateTable('locations').set({ scope: 'public' }).where('id', '=', secret!).execute();
    await expectMoved(true);
    await t.database.db.deleteFrom('locations').where('id', '=', secret!).execute();
    await expectMoved(true);

    await updateSettings(t.database.db, user.id, { publicLocationPrecisionM: 5000 });
    await expectMoved(true);
    // The public pages show times on the owner's clock (migration 0044).
    await updateSettings(t.database.db, user.id, { timezone: 'Europe/Berlin' });
    await expectMoved(true);
    await updateSettings(t.database.db, user.id, { publicLocationPrecisionM: 100 });
    await expectMoved(true);

    const other = await createTestUser(t.database);
    await insertItems(t.database, 'posts', other.id, [{ scope: 'public' }]);
    await expectMoved(false);
  });
});
