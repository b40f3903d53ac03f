// How many apps one address may register at /oauth/register (docs/oauth.md "Self-registration"):
// a budget per client address and hour. It is the sign-in limits' budget
// (src/account/sign-in-limits.repo.ts, docs/sign-in-limits.md) under a key of its own: counted in
// the same table, reserved in one statement before the registration is processed, so neither a
// burst of parallel requests nor several servers on one database get past it, and given back
// when nothing was stored.
import { createHmac } from 'node:crypto';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import { clientOf } from '../account/sign-in-limits.logic.ts';
import { refusedUntil, release, reserveBudget, type Reserved } from '../account/sign-in-limits.repo.ts';
import { deriveKey } from '../lib/crypto.ts';

export const REGISTRATION_WINDOW_MS = 60 * 60 * 1000;

export interface RegistrationLimits {
  /** Registrations per client address per window. */
  perAddress: number;
  /** Key for the HMAC of addresses: none is kept in the database. */
  key: Buffer;
}

export function registrationLimits(config: Config): RegistrationLimits {
  return { perAddress: config.clientRegistrationLimit, key: deriveKey(config.secretKey, 'oauth-registration-limits') };
}

export type RegistrationReservation = { ok: true; reserved: Reserved } | { ok: false; retryAfterSeconds: number };

/** Takes one registration from the budget of this address (an IPv6 client is its /64). */
export async function reserveRegistration(
  db: Db,
  limits: RegistrationLimits,
  ip: string,
  now: number,
): Promise<RegistrationReservation> {
  const key = createHmac('sha256', limits.key)
    .update(`registration\0${clientOf(ip)}`)
    .digest('base64url');
  const reserved = await reserveBudget(db, key, { now, limit: limits.perAddress, windowMs: REGISTRATION_WINDOW_MS });
  if (reserved) return { ok: true, reserved };
  const until = (await refusedUntil(db, key)) ?? now;
  // A request that read the clock before a concurrent one opened the window would otherwise
  // answer a second more than the window.
  const seconds = Math.ceil(Math.min(until - now, REGISTRATION_WINDOW_MS) / 1000);
  return { ok: false, retryAfterSeconds: Math.max(1, seconds) };
}

/** Gives a reservation back: the registration was refused, so nothing was stored. */
export function giveBackRegistration(db: Db, reservation: { reserved: Reserved }): Promise<void> {
  return release(db, reservation.reserved);
}
