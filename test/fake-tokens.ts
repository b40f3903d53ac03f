// Bearer tokens for tests of features that need a token before the OAuth server issues real
// ones (test/tokens.ts, branch oauth). Same shape as `tokenFor`, so switching is one import.
import { randomBytes } from 'node:crypto';
import type { Auth, BearerResolver } from '../src/http/auth.ts';
import type { Permission } from '../src/oauth/permissions.ts';

export interface FakeTokens {
  resolve: BearerResolver;
  tokenFor(user: { id: string }, permissions: Permission[]): string;
}

export function fakeTokens(): FakeTokens {
  const tokens = new Map<string, Auth>();
  return {
    resolve: async (token) => tokens.get(token),
    tokenFor(user, permissions) {
      const token = randomBytes(16).toString('hex');
      tokens.set(token, { userId: user.id, clientId: 'test', grantId: token, permissions: new Set(permissions) });
      return token;
    },
  };
}
