// Password hashing with scrypt (memory-hard, node:crypto). Parameters follow OWASP's
// password storage guidance for scrypt: N=2^17, r=8, p=1 (128 MiB, about 0.3 s here).
// The parameters are stored with each hash, so they can be raised later and old hashes
// still verify.
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const KEY_LENGTH = 32;
export const DEFAULT_COST = { log2N: 17, r: 8, p: 1 };

function scrypt(password: string, salt: Buffer, length: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCallback(password.normalize('NFKC'), salt, length, options, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

function options({ log2N, r, p }: typeof DEFAULT_COST): ScryptOptions {
  const N = 2 ** log2N;
  return { N, r, p, maxmem: 256 * N * r };
}

/** `scrypt$<log2 N>$<r>$<p>$<salt>$<key>`, salt and key in base64. */
export async function hashPassword(password: string, cost = DEFAULT_COST): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, KEY_LENGTH, options(cost));
  return ['scrypt', cost.log2N, cost.r, cost.p, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  const [scheme, log2N, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64');
  const cost = { log2N: Number(log2N), r: Number(r), p: Number(p) };
  const actual = await scrypt(password, Buffer.from(salt, 'base64'), expected.length, options(cost));
  return timingSafeEqual(actual, expected);
}

/** A hash no password matches, to spend the same time when a username is unknown. */
let decoy: Promise<string> | undefined;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(16).toString('hex'));
  return decoy;
}
