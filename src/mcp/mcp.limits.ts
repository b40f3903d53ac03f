// How often one assistant may call (docs/mcp.md "Limits"): a budget of requests per grant and
// minute, kept in the database with the sign-in budgets (src/account/sign-in-limits.repo.ts,
// one statement per reservation), so several Waypost processes share one count and two requests
// cannot both take the last place.
import { createHmac } from 'node:crypto';
import type { Db } from '../db/database.ts';
import { refusedUntil, reserveBudget } from '../account/sign-in-limits.repo.ts';
import { AppError } from '../core/errors.ts';
import { deriveKey } from '../lib/crypto.ts';
import { nowMs } from '../lib/time.ts';

export const MCP_WINDOW_MS = 60_000;

export interface McpLimits {
  perMinute: number;
  /** Key for the HMAC of grant ids: the table keeps no grant id in the clear. */
  key: Buffer;
}

export function mcpLimits(secretKey: Buffer, perMinute: number): McpLimits {
  return { perMinute, key: deriveKey(secretKey, 'mcp-request-limits') };
}

/** Takes one request from the grant's budget, or 429 with Retry-After. */
export async function spendRequest(db: Db, limits: McpLimits, grantId: string): Promise<void> {
  const key = createHmac('sha256', limits.key).update(`mcp\0${grantId}`).digest('base64url');
  const now = nowMs();
  if (await reserveBudget(db, key, { now, limit: limits.perMinute, windowMs: MCP_WINDOW_MS })) return;
  const until = (await refusedUntil(db, key)) ?? now;
  const seconds = Math.max(1, Math.ceil(Math.min(until - now, MCP_WINDOW_MS) / 1000));
  throw new AppError(
    'too_many_requests',
    `This assistant made ${limits.perMinute} requests within a minute; try again in ${seconds} seconds.`,
    { headers: { 'retry-after': String(seconds) } },
  );
}
