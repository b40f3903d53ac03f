// Service secrets at rest: AES-256-GCM with a key derived for this purpose only from the
// server's secret key (docs/design.md "Data model"). The service id is the additional authenticated
// data, so a ciphertext copied onto another row does not decrypt.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { deriveKey } from '../lib/crypto.ts';

const VERSION = 'v1';

export type SecretKey = Buffer & { readonly __secretsKey: unique symbol };

export function secretsKey(serverSecret: Buffer): SecretKey {
  return deriveKey(serverSecret, 'service-secrets') as SecretKey;
}

export function sealSecrets(key: SecretKey, serviceId: string, secrets: Record<string, string>): string {
  // NIST SP 800-38D: a 96-bit random IV; we encrypt far fewer than 2^32 messages per key.
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(serviceId));
  const sealed = Buffer.concat([cipher.update(JSON.stringify(secrets), 'utf8'), cipher.final()]);
  return [
    VERSION,
    iv.toString('base64url'),
    sealed.toString('base64url'),
    cipher.getAuthTag().toString('base64url'),
  ].join('.');
}

export function openSecrets(key: SecretKey, serviceId: string, stored: string): Record<string, string> {
  const [version, iv = '', sealed = '', tag = ''] = stored.split('.');
  if (version !== VERSION) throw new Error(`unknown secrets format ${version ?? ''}`);
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(serviceId));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  const plain = Buffer.concat([decipher.update(Buffer.from(sealed, 'base64url')), decipher.final()]);
  return JSON.parse(plain.toString('utf8')) as Record<string, string>;
}

// A connector's saved state (a session) is sealed the same way under its own additional data, so
// it cannot be swapped with the secrets of any service.
const stateAad = (serviceId: string) => `${serviceId}/state`;

export function sealState(key: SecretKey, serviceId: string, value: string): string {
  return sealSecrets(key, stateAad(serviceId), { state: value });
}

/** The saved state, or null when there is none or it no longer opens (then it is started afresh). */
export function openState(key: SecretKey, serviceId: string, stored: string | null | undefined): string | null {
  if (!stored) return null;
  try {
    return openSecrets(key, stateAad(serviceId), stored).state ?? null;
  } catch {
    return null;
  }
}
