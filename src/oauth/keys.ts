// Every key the OAuth server needs, derived from the one secret key (config.secretKey), so all
// processes that share the secret agree without files or shared memory.
import { createECDH } from 'node:crypto';
import type { JWKS } from 'oidc-provider';
import { deriveKey } from '../lib/crypto.ts';

/** Keys that sign oidc-provider's cookies (interaction, resume, session). */
export function cookieKeys(secret: Buffer): string[] {
  return [deriveKey(secret, 'oauth-cookies').toString('base64url')];
}

/**
 * One EC P-256 signing key. oidc-provider needs a key in its JWKS even though it never signs
 * anything here (no id_token: client metadata always carries id_token_signed_response_alg, and
 * registration fails without a matching key). The private scalar comes from HKDF; a 32-byte
 * HKDF output is a valid P-256 scalar except with probability about 2^-32, in which case
 * setPrivateKey throws and the operator must change the secret.
 */
export function signingKeys(secret: Buffer): JWKS {
  const d = deriveKey(secret, 'oauth-signing-key-p256');
  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(d);
  const point = ecdh.getPublicKey(); // 0x04 || x || y
  return {
    keys: [
      {
        kty: 'EC',
        crv: 'P-256',
        d: d.toString('base64url'),
        x: point.subarray(1, 33).toString('base64url'),
        y: point.subarray(33, 65).toString('base64url'),
        use: 'sig',
        alg: 'ES256',
      },
    ],
  };
}
