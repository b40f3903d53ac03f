// What makes a username and a password acceptable. Written down here, in the README and in
// the OpenAPI description of the user object.

/**
 * Usernames: 2 to 30 characters, ASCII letters, digits and underscores, starting with a
 * letter or digit. Unique regardless of case (`Alice` and `alice` are the same account),
 * shown as first written. They appear in URLs (/posts/public/<username>), so no other
 * characters.
 */
export const USERNAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_]{1,29}$';
const USERNAME = new RegExp(USERNAME_PATTERN);

/** Passwords: 8 to 1024 characters (NIST SP 800-63B: at least 8, allow at least 64). */
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 1024;

export const DISPLAY_NAME_MAX = 100;
export const BIO_MAX = 2000;

export function usernameProblem(username: string): string | undefined {
  if (USERNAME.test(username)) return undefined;
  return 'must be 2 to 30 letters, digits or underscores, starting with a letter or digit';
}

export function passwordProblem(password: string): string | undefined {
  if (password.length < PASSWORD_MIN) return `must be at least ${PASSWORD_MIN} characters`;
  if (password.length > PASSWORD_MAX) return `must be at most ${PASSWORD_MAX} characters`;
  return undefined;
}

export function usernameKey(username: string): string {
  return username.toLowerCase();
}
