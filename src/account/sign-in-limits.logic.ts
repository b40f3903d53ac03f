// Limits on sign-in attempts, the same for every page that checks a password (/account and the
// OAuth sign-in page). The scheme and why it is this one: docs/sign-in-limits.md. In short,
// each attempt is reserved before the password is checked, against three keys:
//
// - the account and the client's address: a small budget per window, which stops a guesser at
//   one address and leaves the person at their own address alone;
// - the account, from every address: throttling, never a lockout. Past a number of attempts
//   each further one waits after the one before it, the wait doubling up to a maximum, so a
//   guesser spread over many addresses gets a few tries an hour and the person still gets in;
// - the address, across accounts: a larger budget against one address trying many accounts.
//
// Strangers' failures thus slow strangers: failing from another address does not touch the
// budget of the person's (account, address) key, and the account key only delays. A browser
// that signed in to the account before (a device cookie) counts under a budget of its own,
// and neither of the other keys applies to it, so not even a stranger at the person's own
// address (a proxy that hides every visitor's address) keeps the person out.
import { createHmac } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import { deriveKey, randomToken, safeEqual } from '../lib/crypto.ts';
import { usernameKey } from '../users/users.rules.ts';
import { refusedUntil, release, reserveBudget, reserveThrottled, type Reserved } from './sign-in-limits.repo.ts';

/** The window of the budgets, and how long an account must be quiet for its run of attempts to end. */
export const SIGN_IN_WINDOW_MS = 15 * 60 * 1000;
/** The first wait once an account's free attempts are spent; each further one doubles it. */
export const FIRST_DELAY_MS = 1000;

export interface SignInLimits {
  /** Attempts per account and address per window. */
  perAccountAddress: number;
  /** Attempts per address, across accounts, per window. */
  perAddress: number;
  /** Attempts on an account, from anywhere, before each further one waits. */
  accountFree: number;
  /** The longest wait between attempts on an account. */
  maxDelayMs: number;
  /** Key for the HMAC of usernames and addresses: none is kept in the database. */
  key: Buffer;
}

export function signInLimits(config: Config): SignInLimits {
  return {
    perAccountAddress: config.signInAccountAddressLimit,
    perAddress: config.signInAddressLimit,
    accountFree: config.signInAccountFree,
    maxDelayMs: config.signInMaxDelaySeconds * 1000,
    key: deriveKey(config.secretKey, 'sign-in-limits'),
  };
}

/**
 * The part of a client address that names one client: an IPv4 address, or the /64 network of an
 * IPv6 address (the smallest network a subscriber is given; counting single IPv6 addresses
 * would let one client pass as 2^64). IPv4-mapped IPv6 addresses are their IPv4 address.
 */
export function clientOf(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1];
  if (mapped && isIPv4(mapped)) return mapped;
  if (!isIPv6(ip)) return ip;
  const [head = '', tail] = ip.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}

const mac = (limits: SignInLimits, value: string) => createHmac('sha256', limits.key).update(value).digest('base64url');

/** The key the account's own count (from every address) is kept under; deleting an account deletes it. */
export function accountLimitKey(limits: SignInLimits, username: string): string {
  return mac(limits, `account\0${usernameKey(username)}`);
}

/** Who tries: the client's address, and the device cookie its browser holds, if any. */
export interface Client {
  ip: string;
  device?: string | undefined;
}

/**
 * A device cookie's value: a random id and a MAC binding it to the account. A browser gets one
 * when it signs in to the account, and from then on its attempts on that account are counted
 * under the device instead of its address (OWASP's device cookies, docs/sign-in-limits.md).
 */
export function deviceToken(limits: SignInLimits, username: string, id = randomToken(16)): string {
  return `${id}.${mac(limits, `device\0${usernameKey(username)}\0${id}`)}`;
}

/** The id of a device cookie that belongs to this account, or undefined. */
function trustedDevice(limits: SignInLimits, username: string, token: string | undefined): string | undefined {
  const id = token?.split('.')[0];
  if (!token || !id || !/^[A-Za-z0-9_-]{22}$/.test(id)) return undefined;
  return safeEqual(token, deviceToken(limits, username, id)) ? id : undefined;
}

export type Reservation =
  { ok: true; reserved: Reserved[]; trusted: boolean } | { ok: false; retryAfterSeconds: number };

/**
 * Reserves one attempt for this username and address, before the password is checked: each key
 * counts it at once, as a failure. Refused when any key has no room; the keys reserved before
 * the refusing one are given back. The order (account and address, address, account) means a
 * client refused for its own budget touches nothing the person shares.
 */
export async function reserveAttempt(
  db: Db,
  limits: SignInLimits,
  username: string,
  client: Client,
  now: number,
): Promise<Reservation> {
  const account = usernameKey(username);
  const address = clientOf(client.ip);
  const budget = (key: string, limit: number) => (): Promise<Reserved | undefined> =>
    reserveBudget(db, key, { now, limit, windowMs: SIGN_IN_WINDOW_MS });
  const device = trustedDevice(limits, username, client.device);
  const pair = mac(limits, device ? `device\0${account}\0${device}` : `account+address\0${account}\0${address}`);
  const steps: [string, () => Promise<Reserved | undefined>][] = [[pair, budget(pair, limits.perAccountAddress)]];
  // A browser that signed in to this account before has a budget of its own, and nothing a
  // stranger does to the address or the account touches it.
  if (!device) {
    const byAddress = mac(limits, `address\0${address}`);
    const byAccount = accountLimitKey(limits, username);
    steps.push([byAddress, budget(byAddress, limits.perAddress)]);
    steps.push([
      byAccount,
      () =>
        reserveThrottled(db, byAccount, {
          now,
          free: limits.accountFree,
          baseMs: FIRST_DELAY_MS,
          maxMs: limits.maxDelayMs,
          quietMs: SIGN_IN_WINDOW_MS,
        }),
    ]);
  }
  const reserved: Reserved[] = [];
  for (const [key, reserve] of steps) {
    const got = await reserve();
    if (!got) {
      await giveBack(db, reserved);
      const until = (await refusedUntil(db, key)) ?? now;
      // A concurrent attempt that read the clock after this one may have opened the window: no
      // refusal lasts longer than a window from now, so the wait never says more (a flaky 901 s).
      const seconds = Math.ceil(Math.min(until - now, SIGN_IN_WINDOW_MS) / 1000);
      return { ok: false, retryAfterSeconds: Math.max(1, seconds) };
    }
    reserved.push(got);
  }
  return { ok: true, reserved, trusted: device !== undefined };
}

/** Gives reserved attempts back: the password was right, so they were no failures. */
export async function giveBack(db: Db, reserved: Reserved[]): Promise<void> {
  for (const one of reserved) await release(db, one);
}
