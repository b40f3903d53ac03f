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
}

/** Who is calling, and what the token lets them do right now. */
export interface Auth extends TokenGrant {
  username: string;
}

const REALM = 'Bearer realm="waypost"';

export function unauthorized(detail = 'This needs an access token: send it as Authorization: Bearer <token>.') {
  return new AppError('unauthorized', detail, { headers: { 'www-authenticate': REALM } });
}

export function invalidToken() {
  return new AppError('invalid_token', 'The access token is invalid, expired or revoked.', {
    headers: { 'www-authenticate': `${REALM}, error="invalid_token", error_description="The access token is invalid"` },
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
