import { createHash, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/** A random secret for a URL or a header: `bytes` random bytes, base64url. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** SHA-256 as hex: how tokens, codes and session ids are stored (never the secret itself). */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
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
