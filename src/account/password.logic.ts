// Changing one's own password from the pages: the current password is checked as a sign-in is
// (counted against the sign-in limits, docs/sign-in-limits.md), the new one by the same rule as
// every password (src/users/users.rules.ts). Once changed, every web session of the person ends
// (the page that changed it starts a new one), so a browser left signed in elsewhere is out;
// the apps the person authorized keep their tokens, which the Apps page revokes one by one.
import type { Db } from '../db/database.ts';
import { hashPassword } from '../users/passwords.ts';
import { updatePasswordHash } from '../users/users.repo.ts';
import { passwordProblem } from '../users/users.rules.ts';
import { nowMs } from '../lib/time.ts';
import { signIn, signInRefusal } from './sessions.logic.ts';
import { deleteUserSessions } from './sessions.repo.ts';
import type { Client, SignInLimits } from './sign-in-limits.logic.ts';

export interface PasswordForm {
  current?: string | undefined;
  password?: string | undefined;
  password_again?: string | undefined;
}

/** What went wrong, by field, in words for the page. */
export type PasswordErrors = Partial<Record<keyof PasswordForm, string>>;

export type PasswordChange =
  | { ok: true; device: string }
  | { ok: false; status: 400 | 401 | 429; errors: PasswordErrors; headers: Record<string, string> };

export async function changeOwnPassword(
  db: Db,
  limits: SignInLimits,
  person: { id: string; username: string },
  form: PasswordForm,
  client: Client,
): Promise<PasswordChange> {
  const password = form.password ?? '';
  const errors: PasswordErrors = {};
  const problem = passwordProblem(password);
  if (problem) errors.password = `The new password ${problem}.`;
  else if (password !== (form.password_again ?? '')) errors.password_again = 'The two new passwords differ.';
  if (!form.current) errors.current = 'Enter your current password.';
  if (Object.keys(errors).length > 0) return { ok: false, status: 400, errors, headers: {} };

  // Checked last, so a typo in the new password does not count as a failed sign-in.
  const result = await signIn(db, limits, person.username, form.current ?? '', client);
  if (!result.ok || result.user.id !== person.id) {
    const refusal = signInRefusal(result.ok ? { ok: false, reason: 'invalid' } : result);
    const current = refusal.status === 401 ? 'This is not your current password.' : refusal.error;
    return { ok: false, status: refusal.status, errors: { current }, headers: refusal.headers };
  }
  await updatePasswordHash(db, person.id, await hashPassword(password), nowMs());
  await deleteUserSessions(db, person.id);
  return { ok: true, device: result.device };
}
