// When to try a failed job again: exponential backoff with jitter (AWS Architecture Blog,
// "Exponential Backoff And Jitter": "equal jitter" keeps the growth and spreads the herd).

export interface RetryPolicy {
  baseMs: number;
  maxMs: number;
}

/** Delay before attempt `attempt + 1`, after `attempt` (1-based) failed. `random` in [0, 1). */
export function retryDelayMs(attempt: number, { baseMs, maxMs }: RetryPolicy, random: () => number): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}
