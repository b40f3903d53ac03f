// Who is calling, without any framework: what an access token (or the web app's session) stands
// for, and the errors of a caller who lacks something (RFC 6750 section 3, docs/api.md "Scopes
// and who sees what"). src/http/auth.ts finds the caller; logic anywhere may refuse one.
import { AppError } from './errors.ts';
import type { Permission } from './permissions.ts';

/** What an access token stands for: whose it is, through which grant, and what it allows now. */
export interface TokenGrant {
  userId: string;
  clientId: string;
  grantId: string;
  /** Effective permissions: the token's, minus any the person has since withdrawn. */
  permissions: ReadonlySet<Permission>;
  /** When the token expires, in milliseconds since the epoch. */
  expiresAt: number;
  /**
   * The resource the token is bound to (RFC 8707, src/oauth/resources.ts): good there and
   * nowhere else. Undefined for a plain API token and the web app's session.
   */
  audience?: string | undefined;
}

/** Who is calling, and what the token lets them do right now. */
export interface Auth extends TokenGrant {
  username: string;
}

const REALM = 'Bearer realm="waypost"';

/**
 * Extra parameters of a protected resource's challenge: RFC 9728 5.1 `resource_metadata`, so a
 * client that knows nothing but the resource's URL finds how to get a token for it.
 */
export function resourceChallenge(metadataUrl: string | undefined): string {
  return metadataUrl ? `, resource_metadata="${metadataUrl}"` : '';
}

export function unauthorized(
  detail = 'This needs an access token: send it as Authorization: Bearer <token>.',
  challenge = '',
) {
  return new AppError('unauthorized', detail, { headers: { 'www-authenticate': `${REALM}${challenge}` } });
}

export function invalidToken(challenge = '') {
  return new AppError('invalid_token', 'The access token is invalid, expired or revoked.', {
    headers: {
      'www-authenticate': `${REALM}, error="invalid_token", error_description="The access token is invalid"${challenge}`,
    },
  });
}

/** A valid token issued for another resource (RFC 8707): refused as RFC 6750 says of any token that does not fit. */
export function wrongAudience(challenge = '') {
  return new AppError('invalid_token', 'The access token was issued for another resource than this one.', {
    headers: {
      'www-authenticate': `${REALM}, error="invalid_token", error_description="The access token is for another resource"${challenge}`,
    },
  });
}

export function insufficientScope(permission: Permission) {
  return new AppError('insufficient_scope', `The access token lacks the permission ${permission}.`, {
    headers: { 'www-authenticate': `${REALM}, error="insufficient_scope", scope="${permission}"` },
  });
}

export function csrfFailed() {
  return new AppError(
    'csrf_failed',
    "This request uses the signed-in session and must send the page's CSRF token in X-CSRF-Token.",
  );
}
