// OAuth clients the operator manages (`waypost client add|list|delete`). Dynamic registration
// (RFC 7591) goes through oidc-provider itself and lands in the same table.
import { createHmac } from 'node:crypto';
import type Provider from 'oidc-provider';
import { errors } from 'oidc-provider';
import type { Db } from '../db/database.ts';
import { AppError, notFound } from '../core/errors.ts';
import { deriveKey, randomToken } from '../lib/crypto.ts';
import { deleteClientEverywhere, listClientRows, saveClient } from './oauth.repo.ts';

/**
 * A confidential client's secret, derived from the server key and the client id: nothing to
 * store (a copy of the database holds no client secret) and every process agrees on it.
 */
export function clientSecretFor(secretKey: Buffer, clientId: string): string {
  return createHmac('sha256', deriveKey(secretKey, 'oauth-client-secrets')).update(clientId).digest('base64url');
}

export interface NewClient {
  name: string;
  redirectUris: string[];
  confidential: boolean;
}

export interface ClientSummary {
  clientId: string;
  name: string;
  redirectUris: string[];
  confidential: boolean;
}

/** Creates a client; the secret (confidential clients only) is returned once and never stored. */
export async function addClient(
  provider: Provider,
  db: Db,
  secretKey: Buffer,
  input: NewClient,
): Promise<ClientSummary & { clientSecret?: string }> {
  const clientId = randomToken(16);
  const clientSecret = input.confidential ? clientSecretFor(secretKey, clientId) : undefined;
  // A private-use scheme (com.example.app:/callback) means an app on a device (RFC 8252).
  const native = input.redirectUris.some((uri) => !/^https?:/i.test(uri));
  const metadata = {
    client_id: clientId,
    application_type: native ? ('native' as const) : ('web' as const),
    client_name: input.name,
    redirect_uris: input.redirectUris,
    token_endpoint_auth_method: input.confidential ? ('client_secret_basic' as const) : ('none' as const),
    ...(clientSecret ? { client_secret: clientSecret } : {}),
  };
  try {
    // The same checks dynamic registration applies (URI syntax, no fragments, ...).
    await provider.Client.validate(metadata);
  } catch (error) {
    if (error instanceof errors.OIDCProviderError) {
      throw new AppError('invalid_client_metadata', error.error_description ?? error.message);
    }
    throw error;
  }
  await saveClient(db, clientId, metadata);
  return {
    clientId,
    name: input.name,
    redirectUris: input.redirectUris,
    confidential: input.confidential,
    ...(clientSecret ? { clientSecret } : {}),
  };
}

/**
 * Whether a client registered itself at /oauth/register. RFC 7591 3.2.1: the registration
 * response carries `client_id_issued_at`; oidc-provider's registration stores it with the
 * client, and `addClient` (the operator's) never sets it, so apps that registered before
 * Waypost asked this are told apart too.
 */
export function selfRegistered(metadata: { client_id_issued_at?: unknown }): boolean {
  return metadata.client_id_issued_at !== undefined;
}

export async function listClients(db: Db): Promise<ClientSummary[]> {
  return (await listClientRows(db)).map((row) => {
    const metadata = JSON.parse(row.payload) as {
      client_name?: string;
      redirect_uris?: string[];
      token_endpoint_auth_method?: string;
    };
    return {
      clientId: row.id,
      name: metadata.client_name ?? '',
      redirectUris: metadata.redirect_uris ?? [],
      confidential: (metadata.token_endpoint_auth_method ?? 'none') !== 'none',
    };
  });
}

/** Deletes a client with every grant and token it holds. */
export async function deleteClient(db: Db, clientId: string): Promise<void> {
  if (!(await deleteClientEverywhere(db, clientId))) throw notFound(`There is no client "${clientId}".`);
}
