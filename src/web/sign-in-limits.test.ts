// Sign-in limits (docs/sign-in-limits.md) at the logic level, on the dialect under test, with an
// injected clock: bursts of parallel attempts, two server instances sharing one database, the
// cases where a stranger tries to lock a person out, the throttle per account, and housekeeping.
// The same rules over HTTP, on both sign-in pages: src/web/account.test.ts, src/oauth/oauth.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, createTestUser, testConfig, type TestDatabase } from '../../test/helpers.ts';
import type { Database } from '../db/database.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { signIn, type SignInResult } from '../account/sessions.logic.ts';
import { clientOf, SIGN_IN_WINDOW_MS, signInLimits, type SignInLimits } from '../account/sign-in-limits.logic.ts';
import { purgeExpiredLimits } from '../account/sign-in-limits.repo.ts';

let test: TestDatabase;
let database: Database;
/** A second connection (SQLite) or pool (PostgreSQL) to the same database: another server. */
let other: Database;
let limits: SignInLimits;

beforeAll(async () => {
  test = await createTestDatabase();
  database = test.database;
  await migrateToLatest(database);
  other = test.reopen();
  limits = signInLimits(testConfig(test.dataDir));
});
afterAll(async () => {
  await other.close();
  await database.close();
  await test.drop();
});

const T0 = Date.parse('2026-03-01T12:00:00Z');
let clock = T0;
/** Each test starts a day after the one before: nothing carries over. */
const nextDay = () => (clock += 24 * 60 * 60 * 1000);

const attempt = (username: string, password: string, ip: string, at: number, db = database, device?: string) =>
  signIn(db.db, limits, username, password, { ip, device }, at);

function tally(results: SignInResult[]) {
  return {
    signedIn: results.filter((r) => r.ok).length,
    checked: results.filter((r) => r.ok || r.reason === 'invalid').length,
    limited: results.filter((r) => !r.ok && r.reason === 'limited').length,
  };
}

describe('the defaults', () => {
  it('are 5 per account and address, 100 per address, 10 free per account, waits up to 300 s', () => {
    expect({ ...limits, key: undefined }).toEqual({
      perAccountAddress: 5,
      perAddress: 100,
      accountFree: 10,
      maxDelayMs: 300_000,
      key: undefined,
    });
  });
});

describe('a burst of parallel attempts', () => {
  it('from one address: exactly the budget is checked, the rest refused; a right password then does not sign in', async () => {
    const at = nextDay();
    const user = await createTestUser(database);
    const burst = await Promise.all(
      Array.from({ length: 60 }, () => attempt(user.username, 'wrong password', '203.0.113.5', at)),
    );
    expect(tally(burst)).toEqual({ signedIn: 0, checked: limits.perAccountAddress, limited: 60 - 5 });
    for (const r of burst.filter((r) => !r.ok && r.reason === 'limited')) {
      expect(r).toEqual({ ok: false, reason: 'limited', retryAfterSeconds: SIGN_IN_WINDOW_MS / 1000 });
    }
    // 200 more, the right password among them, a little later in the same window.
    const attempts = Array.from({ length: 200 }, (_, i) =>
      attempt(user.username, i === 100 ? user.password : 'wrong password', '203.0.113.5', at + 1000),
    );
    expect(tally(await Promise.all(attempts))).toEqual({ signedIn: 0, checked: 0, limited: 200 });
  });

  it('with the right password in it: at most the budget is checked, however they interleave', async () => {
    const at = nextDay();
    const user = await createTestUser(database);
    const attempts = Array.from({ length: 60 }, (_, i) =>
      attempt(user.username, i === 59 ? user.password : 'wrong password', '203.0.113.6', at),
    );
    const results = await Promise.all(attempts);
    expect(tally(results).checked).toBe(limits.perAccountAddress);
    // If it was checked, the right password signed in; if not, it was refused, never checked late.
    expect(results[59]!.ok || (results[59] as { reason: string }).reason === 'limited').toBe(true);
  });

  it('from many addresses against one account: exactly the free attempts are checked, then each waits', async () => {
    const at = nextDay();
    const user = await createTestUser(database);
    // Requests read the clock a moment apart and reach the database in any order.
    const burst = await Promise.all(
      Array.from({ length: 80 }, (_, i) =>
        attempt(user.username, 'wrong password', `198.18.${i}.1`, at + ((i * 7) % 13)),
      ),
    );
    expect(tally(burst)).toEqual({ signedIn: 0, checked: limits.accountFree, limited: 70 });
    for (const r of burst.filter((r) => !r.ok && r.reason === 'limited')) {
      // The first wait, 1 s, from the last checked attempt's clock reading (up to 12 ms apart).
      expect([1, 2]).toContain((r as { retryAfterSeconds: number }).retryAfterSeconds);
    }
  });

  it('two server instances on one database share the count', async () => {
    const at = nextDay();
    const user = await createTestUser(database);
    const burst = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        attempt(user.username, 'wrong password', '203.0.113.7', at + (i % 5), i % 2 ? other : database),
      ),
    );
    expect(tally(burst)).toEqual({ signedIn: 0, checked: limits.perAccountAddress, limited: 95 });
    // Either instance now refuses the right password from that address.
    for (const db of [database, other]) {
      expect(await attempt(user.username, user.password, '203.0.113.7', at, db)).toMatchObject({ reason: 'limited' });
    }
    // The account's throttle is shared too: from many addresses, split over both instances.
    const user2 = await createTestUser(database);
    const spread = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        attempt(user2.username, 'wrong password', `198.19.${i}.1`, at, i % 2 ? other : database),
      ),
    );
    expect(tally(spread)).toEqual({ signedIn: 0, checked: limits.accountFree, limited: 50 });
  });
});

describe('a success is not a failure', () => {
  it('gives its reservation back, so signing in again and again never runs into the limits', async () => {
    const at = nextDay();
    const user = await createTestUser(database);
    for (let i = 0; i < 3 * limits.perAccountAddress; i++) {
      expect(await attempt(user.username, user.password, '203.0.113.8', at)).toMatchObject({ ok: true });
    }
    // Four typos and a right password: the fifth failure is still checked, the sixth is not.
    for (let i = 0; i < limits.perAccountAddress - 1; i++) {
      expect(await attempt(user.username, 'typo', '203.0.113.8', at)).toEqual({ ok: false, reason: 'invalid' });
    }
    expect(await attempt(user.username, user.password, '203.0.113.8', at)).toMatchObject({ ok: true });
    expect(await attempt(user.username, 'typo', '203.0.113.8', at)).toEqual({ ok: false, reason: 'invalid' });
    expect(await attempt(user.username, user.password, '203.0.113.8', at)).toMatchObject({ reason: 'limited' });
  });
});

describe('a stranger cannot lock a person out', () => {
  it("twenty failures from the stranger's address leave the person's address and every other account alone", async () => {
    const at = nextDay();
    const person = await createTestUser(database);
    const neighbour = await createTestUser(database);
    const stranger = '192.0.2.66';
    const results = [];
    for (let i = 0; i < 20; i++) results.push(await attempt(person.username, 'guess', stranger, at + i * 1000));
    expect(tally(results)).toEqual({ signedIn: 0, checked: 5, limited: 15 });
    // The person, from their own address, at once.
    expect(await attempt(person.username, person.password, '198.51.100.20', at + 20_000)).toMatchObject({ ok: true });
    // Another account from the stranger's very address (behind a proxy without the trusted-proxy
    // setting, every visitor has that address).
    expect(await attempt(neighbour.username, neighbour.password, stranger, at + 20_000)).toMatchObject({ ok: true });
    // The stranger's own budget opens again after the window.
    expect(await attempt(person.username, person.password, stranger, at + SIGN_IN_WINDOW_MS)).toMatchObject({
      ok: true,
    });
  });

  it('a guesser spread over many addresses only slows the account: the wait doubles up to the maximum, never a lockout', async () => {
    const at = nextDay();
    const person = await createTestUser(database);
    let now = at;
    let address = 0;
    const guess = () =>
      attempt(person.username, 'guess', `198.18.${address++ % 250}.${Math.floor(address / 250)}`, now);
    for (let i = 0; i < limits.accountFree; i++) expect(await guess()).toEqual({ ok: false, reason: 'invalid' });
    // Each further guess waits after the one before it: 1 s, 2 s, 4 s, ... up to 300 s.
    const waits = [];
    for (let i = 0; i < 12; i++) {
      const refused = await guess();
      expect(refused).toMatchObject({ ok: false, reason: 'limited' });
      const wait = (refused as { retryAfterSeconds: number }).retryAfterSeconds;
      waits.push(wait);
      now += wait * 1000 - 1;
      expect(await guess()).toMatchObject({ reason: 'limited' }); // not a millisecond early
      now += 1;
      expect(await guess()).toEqual({ ok: false, reason: 'invalid' });
    }
    expect(waits).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300]);
    // The person, from anywhere, gets in as soon as the wait is over; nothing closes the door.
    const refused = await attempt(person.username, person.password, '198.51.100.30', now);
    expect(refused).toEqual({ ok: false, reason: 'limited', retryAfterSeconds: 300 });
    now += 300_000;
    expect(await attempt(person.username, person.password, '198.51.100.30', now)).toMatchObject({ ok: true });
    // After a window without attempts the account starts afresh.
    now += SIGN_IN_WINDOW_MS;
    for (let i = 0; i < limits.accountFree; i++) expect(await guess()).toEqual({ ok: false, reason: 'invalid' });
  });

  it('one address trying many accounts is refused after its larger budget, for every account; others are not', async () => {
    const at = nextDay();
    const sprayer = '192.0.2.77';
    // Known accounts: an unknown name costs a full-strength decoy hash, too slow for 100 here.
    const accounts: string[] = [];
    for (let i = 0; i < 25; i++) accounts.push((await createTestUser(database)).username);
    for (let i = 0; i < limits.perAddress; i++) {
      const name = accounts[i % accounts.length]!;
      expect(await attempt(name, 'Summer2026!', sprayer, at)).toEqual({ ok: false, reason: 'invalid' });
    }
    const person = await createTestUser(database);
    expect(await attempt(person.username, person.password, sprayer, at)).toEqual({
      ok: false,
      reason: 'limited',
      retryAfterSeconds: SIGN_IN_WINDOW_MS / 1000,
    });
    expect(await attempt(person.username, person.password, '192.0.2.78', at)).toMatchObject({ ok: true });
    // Neither the refused attempt nor the success took any of the account's free attempts.
    for (let i = 0; i < limits.accountFree; i++) {
      expect(await attempt(person.username, 'typo', `192.0.2.${100 + i}`, at)).toEqual({
        ok: false,
        reason: 'invalid',
      });
    }
  });
});

describe('device cookies', () => {
  const deviceOf = (result: SignInResult) => (result as { device: string }).device;

  it('a browser that signed in before counts on its own: a stranger at the same address, or everywhere, cannot keep the person out', async () => {
    const at = nextDay();
    const person = await createTestUser(database);
    const shared = '192.0.2.210'; // a proxy without the trusted-proxy setting: everyone's address
    const first = await attempt(person.username, person.password, shared, at);
    expect(first).toMatchObject({ ok: true });
    const device = deviceOf(first);
    expect(device).toMatch(/^[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/);
    const stranger = [];
    for (let i = 0; i < 20; i++) stranger.push(await attempt(person.username, 'guess', shared, at + 1));
    expect(tally(stranger)).toEqual({ signedIn: 0, checked: 5, limited: 15 });
    // From many addresses too, so the account's throttle is on.
    for (let i = 0; i < 30; i++) await attempt(person.username, 'guess', `198.18.${i}.9`, at + 2);
    expect(await attempt(person.username, person.password, shared, at + 3)).toMatchObject({ reason: 'limited' });
    const again = await attempt(person.username, person.password, shared, at + 3, database, device);
    expect(again).toEqual({ ok: true, user: expect.objectContaining({ id: person.id }) as unknown, device });
  });

  it('is bound to its account, cannot be forged, and has a budget of its own', async () => {
    const at = nextDay();
    const person = await createTestUser(database);
    const neighbour = await createTestUser(database);
    const device = deviceOf(await attempt(person.username, person.password, '192.0.2.220', at));
    // Another account's cookie, or a forged one, is no device cookie: a new one is issued.
    const other = deviceOf(await attempt(neighbour.username, neighbour.password, '192.0.2.220', at, database, device));
    expect(other).not.toBe(device);
    const forged = `${device.split('.')[0]}.${'A'.repeat(43)}`;
    expect(deviceOf(await attempt(person.username, person.password, '192.0.2.221', at, database, forged))).not.toBe(
      forged,
    );
    // Someone holding the cookie gets the same small budget as an address.
    for (let i = 0; i < limits.perAccountAddress; i++) {
      expect(await attempt(person.username, 'guess', '192.0.2.222', at, database, device)).toEqual({
        ok: false,
        reason: 'invalid',
      });
    }
    expect(await attempt(person.username, person.password, '192.0.2.223', at, database, device)).toMatchObject({
      reason: 'limited',
    });
    expect(await attempt(person.username, person.password, '192.0.2.223', at)).toMatchObject({ ok: true });
  });
});

describe('client addresses', () => {
  it('are IPv4 addresses, or the /64 of an IPv6 address; IPv4-mapped IPv6 is IPv4', () => {
    expect(clientOf('192.0.2.1')).toBe('192.0.2.1');
    expect(clientOf('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(clientOf('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(clientOf('2001:DB8:1:2::9')).toBe('2001:db8:1:2::/64');
    expect(clientOf('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientOf('::1')).toBe('0:0:0:0::/64');
    expect(clientOf('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(clientOf('2001:0db8:0000:0001:0000:0000:0000:0001')).toBe('2001:db8:0:1::/64');
  });

  it('one IPv6 client cannot pass as many by changing the last 64 bits', async () => {
    const at = nextDay();
    const user = await createTestUser(database);
    for (let i = 0; i < limits.perAccountAddress; i++) {
      expect(await attempt(user.username, 'guess', `2001:db8:5:5::${i + 1}`, at)).toMatchObject({ reason: 'invalid' });
    }
    expect(await attempt(user.username, user.password, '2001:db8:5:5:ffff::1', at)).toMatchObject({
      reason: 'limited',
    });
    expect(await attempt(user.username, user.password, '2001:db8:5:6::1', at)).toMatchObject({ ok: true });
  });
});

describe('what is stored', () => {
  it('no usernames or addresses; housekeeping deletes counters whose window is over', async () => {
    const at = nextDay();
    const user = await createTestUser(database);
    await attempt(user.username, 'guess', '192.0.2.99', at);
    const rows = await database.db.selectFrom('sign_in_limits').selectAll().execute();
    const text = JSON.stringify(rows);
    expect(text).not.toContain(user.username.toLowerCase());
    expect(text).not.toContain('192.0.2.99');
    const live = () =>
      database.db
        .selectFrom('sign_in_limits')
        .select('key_hash')
        .where('window_start', '=', at)
        .execute()
        .then((r) => r.length);
    expect(await live()).toBe(3);
    await purgeExpiredLimits(database.db, at + SIGN_IN_WINDOW_MS - 1);
    expect(await live()).toBe(3);
    await purgeExpiredLimits(database.db, at + SIGN_IN_WINDOW_MS);
    expect(await live()).toBe(0);
  });
});
