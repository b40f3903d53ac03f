// Connecting a service by signing in on its server (docs/api.md "Connecting a service by
// signing in"): `POST /services/connect` starts (the connector registers Waypost there, or uses
// the registration kept from before, and names the authorization page), the person signs in and
// allows Waypost on their server, and the server sends them back to the web app's callback
// (`/app/services/connected`), which finishes here: the code is exchanged for a token, stored
// sealed as the service's secret.
// What lies between waits in `service_connections`, found by the SHA-256 of the OAuth `state`
// and only for the person who started: a state used by anyone else, used twice, or older than
// 15 minutes connects nothing.
import type { Db } from '../db/database.ts';
import { AppError, badRequest, notFound, type FieldError } from '../core/errors.ts';
import { randomToken, sha256Hex } from '../lib/crypto.ts';
import type { Outbound } from '../lib/ssrf.ts';
import { msToSeconds } from '../lib/time.ts';
import { changeService } from './change.logic.ts';
import { ConnectError, type AppRegistrations } from './connectors/connect.ts';
import { excerpt } from './connectors/connector.ts';
import { connectors } from './connectors/index.ts';
import type { ServiceType } from './connectors/types.ts';
import { findAppRegistration, insertConnection, keepAppRegistration, takeConnection } from './connect.repo.ts';
import { openSecrets, sealSecrets, type SecretKey } from './secrets.ts';
import { configErrors } from './services.config.ts';
import { createService, getService } from './services.logic.ts';
import type { Service, ServiceConnect, ServiceConnectStart } from './services.schemas.ts';

/** How long the person has to sign in on their server and come back. */
export const CONNECT_LIFETIME_MS = 15 * 60 * 1000;

/** The web app's page the server sends the person back to. */
export const connectCallback = (baseUrl: string) => `${baseUrl}/app/services/connected`;

export interface ConnectDeps {
  db: Db;
  key: SecretKey;
  baseUrl: string;
  outbound: Outbound;
  now: () => number;
}

const sealAad = (stateHash: string) => `connect/${stateHash}`;

/** The person's registrations of Waypost on servers; a client secret is sealed with its row's key as the additional data. */
function appRegistrations(deps: ConnectDeps, userId: string): AppRegistrations {
  /** A registration's row key, and the additional data its secret is sealed with. */
  const keyed = (server: string, redirectUri: string, scopes: string) => ({
    key: { user_id: userId, server, redirect_uri: redirectUri, scopes },
    aad: `app/${JSON.stringify([userId, server, redirectUri, scopes])}`,
  });
  return {
    async find(server, redirectUri, scopes) {
      const { key, aad } = keyed(server, redirectUri, scopes);
      const row = await findAppRegistration(deps.db, key);
      if (!row) return undefined;
      try {
        const { client_secret: clientSecret } = openSecrets(deps.key, aad, row.client_secret);
        return clientSecret ? { clientId: row.client_id, clientSecret } : undefined;
      } catch {
        // Sealed under another secret key (the server's was changed): registered anew, in its place.
        return undefined;
      }
    },
    keep(server, redirectUri, scopes, app) {
      const { key, aad } = keyed(server, redirectUri, scopes);
      return keepAppRegistration(deps.db, {
        ...key,
        client_id: app.clientId,
        client_secret: sealSecrets(deps.key, aad, { client_secret: app.clientSecret }),
        created_at: deps.now(),
      });
    },
  };
}

/** A connector's refusal as a problem the page shows beside the field it names. */
function failed(error: ConnectError): AppError {
  const errors: FieldError[] = error.field ? [{ path: `body/config/${error.field}`, message: error.message }] : [];
  return new AppError('service_connect_failed', `The service could not be connected: ${error.message}`, { errors });
}

/**
 * Starts connecting a service of a type that signs in (Mastodon): checks the settings, has the
 * connector register Waypost on the server, and answers where to send the person. With
 * `service_id`, the token will replace that service's (signing in again).
 */
export async function startConnection(
  deps: ConnectDeps,
  userId: string,
  input: ServiceConnect,
): Promise<ServiceConnectStart> {
  const connector = connectors[input.type];
  const connect = connector.connect;
  if (!connect) {
    throw badRequest(`A ${input.type} service is not connected by signing in: enter its settings instead.`, [
      { path: 'body/type', message: 'is not connected by signing in; add it with its settings' },
    ]);
  }
  if (input.service_id !== undefined) {
    const service = await getService(deps.db, deps.baseUrl, userId, input.service_id);
    if (service.type !== input.type) {
      throw badRequest(`That service is a ${service.type} service, not a ${input.type} one.`, [
        { path: 'body/service_id', message: `is a ${service.type} service` },
      ]);
    }
  }
  const given = input.config;
  const secretErrors = connector.secretFields
    .filter((field) => Object.hasOwn(given, field))
    .map((field) => ({ path: `body/config/${field}`, message: 'comes from your server when you sign in there' }));
  if (secretErrors.length > 0) throw badRequest('Secrets are not given when connecting by signing in.', secretErrors);
  let config: Record<string, unknown>;
  try {
    config = connect.normalize(given);
  } catch (error) {
    if (error instanceof ConnectError) {
      throw badRequest(`The ${input.type} settings are invalid: ${error.message}.`, [
        { path: `body/config/${error.field ?? ''}`, message: error.message },
      ]);
    }
    throw error;
  }
  // The settings as they will be stored, checked now (the secrets stand in until they come).
  const standIn = Object.fromEntries(connector.secretFields.map((field) => [field, 'x']));
  const errors = configErrors(input.type, { ...config, ...standIn });
  if (errors.length > 0) throw badRequest(`The ${input.type} settings are invalid.`, errors);

  const state = randomToken(32);
  const stateHash = sha256Hex(state);
  const redirectUri = connectCallback(deps.baseUrl);
  let started;
  try {
    started = await connect.start({
      config,
      redirectUri,
      state,
      outbound: deps.outbound,
      appName: 'Waypost',
      website: deps.baseUrl,
      apps: appRegistrations(deps, userId),
    });
  } catch (error) {
    throw error instanceof ConnectError ? failed(error) : error;
  }
  const now = deps.now();
  await insertConnection(deps.db, {
    user_id: userId,
    state_hash: stateHash,
    type: input.type,
    service_id: input.service_id ?? null,
    name: input.name ?? null,
    config: JSON.stringify(config),
    pending: sealSecrets(deps.key, sealAad(stateHash), started.pending),
    created_at: now,
    expires_at: now + CONNECT_LIFETIME_MS,
  });
  return { authorize_url: started.authorizeUrl, expires_at: msToSeconds(now + CONNECT_LIFETIME_MS) };
}

/** What the server's redirect brought back to the callback page. */
export interface ConnectReturn {
  state?: string | undefined;
  code?: string | undefined;
  error?: string | undefined;
  error_description?: string | undefined;
}

/**
 * Finishes a connection the person started: exchanges the code for the token and makes the
 * service (or gives the token to the service signing in again). Throws AppError
 * (`service_connect_failed`) with the reason in the person's words.
 */
export async function finishConnection(deps: ConnectDeps, userId: string, back: ConnectReturn): Promise<Service> {
  const refuse = (reason: string) => new AppError('service_connect_failed', reason);
  if (!back.state) throw refuse('Your server sent you back without the state Waypost gave it. Start again.');
  const stateHash = sha256Hex(back.state);
  const row = await takeConnection(deps.db, userId, stateHash);
  if (!row) {
    throw refuse(
      'This sign-in is not one you started here, or it was finished already. Start again from the Services page.',
    );
  }
  if (row.expires_at <= deps.now()) throw refuse('The sign-in took longer than 15 minutes. Start again.');
  const config = JSON.parse(row.config) as Record<string, unknown>;
  const server = typeof config.instance_url === 'string' ? new URL(config.instance_url).host : 'your server';
  if (back.error) {
    throw refuse(
      back.error === 'access_denied'
        ? `You did not allow Waypost on ${server}, so nothing was connected.`
        : `${server} did not connect Waypost (${excerpt(back.error_description ?? back.error, 200)}).`,
    );
  }
  if (!back.code) throw refuse(`${server} sent you back without a code. Start again.`);
  const type = row.type as ServiceType;
  const connect = connectors[type].connect;
  if (!connect) throw refuse(`A ${type} service is not connected by signing in.`);
  let finished;
  try {
    finished = await connect.finish({
      config,
      pending: openSecrets(deps.key, sealAad(stateHash), row.pending),
      code: back.code,
      redirectUri: connectCallback(deps.baseUrl),
      outbound: deps.outbound,
    });
  } catch (error) {
    if (error instanceof ConnectError) throw refuse(error.message);
    throw error;
  }
  if (row.service_id) {
    const service = await getService(deps.db, deps.baseUrl, userId, row.service_id, deps.key).catch(() => {
      throw notFound('The service you signed in again for is gone.');
    });
    const enable = (service.missing_secrets?.length ?? 0) > 0 ? { enabled: true } : {};
    return changeService(deps.db, deps.key, deps.baseUrl, userId, row.service_id, {
      config: { ...config, ...finished.secrets },
      ...enable,
    });
  }
  return createService(deps.db, deps.key, deps.baseUrl, userId, {
    type,
    name: row.name ?? finished.account,
    config: { ...config, ...finished.secrets },
  });
}
