// Connecting an account through the target's own sign-in, as its apps do, instead of a pasted
// token (docs/api.md "Connecting a service by signing in"). A connector that can (Mastodon,
// ./mastodon.connect.ts) says how to start (register Waypost where needed, and the address of
// the server's authorization page) and how to finish (exchange the code for the secrets);
// src/services/connect.logic.ts keeps what lies between and makes the service.
import type { Outbound } from '../../lib/ssrf.ts';

export interface ConnectStartInput {
  /** The settings the person gave, checked by the type's schema (without the secrets). */
  config: Readonly<Record<string, unknown>>;
  /** Where the server sends the person back (Waypost's callback page). */
  redirectUri: string;
  /** The OAuth `state` the server hands back unchanged. */
  state: string;
  outbound: Outbound;
  /** How Waypost names itself to the server, and its address. */
  appName: string;
  website: string;
  /** Waypost's registrations on servers, kept for this person. */
  apps: AppRegistrations;
}

/** Waypost's client credentials on a server. */
export interface AppRegistration {
  clientId: string;
  clientSecret: string;
}

/**
 * The registrations kept from earlier connections, one per server, callback address and
 * scopes, so that connecting again does not register Waypost again (migration 0053).
 */
export interface AppRegistrations {
  find(server: string, redirectUri: string, scopes: string): Promise<AppRegistration | undefined>;
  /** Keeps `app`, in place of a registration kept before for the same server, address and scopes. */
  keep(server: string, redirectUri: string, scopes: string, app: AppRegistration): Promise<void>;
}

export interface ConnectStart {
  /** The server's authorization page, with every parameter: where the person goes next. */
  authorizeUrl: string;
  /** What finishing needs (client credentials, PKCE verifier, token endpoint); kept sealed. */
  pending: Record<string, string>;
}

export interface ConnectFinishInput {
  config: Readonly<Record<string, unknown>>;
  pending: Readonly<Record<string, string>>;
  /** The authorization code the server sent back. */
  code: string;
  redirectUri: string;
  outbound: Outbound;
}

export interface ConnectFinish {
  /** The secret fields to store (an access token). */
  secrets: Record<string, string>;
  /** The account connected, as its server names it (`@alice@mastodon.social`): the service's name by default. */
  account: string;
}

export interface Connect {
  /** The settings as they will be stored, from what the person typed (`mastodon.social` becomes
   * `https://mastodon.social`); throws ConnectError naming the field. */
  normalize(config: Readonly<Record<string, unknown>>): Record<string, unknown>;
  start(input: ConnectStartInput): Promise<ConnectStart>;
  finish(input: ConnectFinishInput): Promise<ConnectFinish>;
}

/** A connection that cannot be made, in words for the person; `field` is the config field at fault. */
export class ConnectError extends Error {
  override name = 'ConnectError';
  readonly field: string | undefined;
  constructor(message: string, field?: string) {
    super(message);
    this.field = field;
  }
}
