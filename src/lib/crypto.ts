import { hash, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/** A random secret for a URL or a header: `bytes` random bytes, base64url. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** SHA-256 as hex: how tokens, codes and session ids are stored (never the secret itself). Node's
 * one-shot `hash` (UTF-8 in, hex out): every authenticated request hashes its token, and this
 * makes no Hash object (about half the time of `createHash().update().digest()`). */
export function sha256Hex(value: string): string {
  return hash('sha256', value, 'hex');
}

/** Compares two strings in time that does not depend on where they differ. */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * A key for one purpose, derived from the server's secret key material (RFC 5869 HKDF), so
 * that cookie signing, encryption at rest and the OAuth server never share a key.
 */
export function deriveKey(secret: Buffer, purpose: string, length = 32): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), `waypost:${purpose}`, length));
}
