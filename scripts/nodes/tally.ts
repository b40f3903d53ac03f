// What the clients of the several-node test saw (docs/scaling.md "The several-node test"): every
// request counted by kind and outcome. An outcome is fine (the answer expected), retryable (the
// connection reset or refused, a 502/503/504 from the balancer: what a client retries during a
// node's death) or a failure (a 500 or any other answer from Waypost the client did not expect,
// or a wrong answer); failures are kept with their details for the report.

export type Outcome = 'ok' | 'retryable' | 'failure';

export interface Failure {
  kind: string;
  what: string;
  at: number;
}

/** A request that could not be answered: the client retries it. */
export class Retryable extends Error {
  readonly label: string;
  constructor(label: string) {
    super(label);
    this.label = label;
  }
}

/** An answer the client should never get. */
export class WrongAnswer extends Error {}

export class Tally {
  readonly started = Date.now();
  /** `kind` -> outcome label -> count. */
  readonly counts = new Map<string, Map<string, number>>();
  readonly failures: Failure[] = [];
  /** When each retryable error happened, to tell which fell in a kill's window. */
  readonly retryableAt: { at: number; label: string }[] = [];

  private add(kind: string, label: string): void {
    const byLabel = this.counts.get(kind) ?? new Map<string, number>();
    byLabel.set(label, (byLabel.get(label) ?? 0) + 1);
    this.counts.set(kind, byLabel);
  }

  ok(kind: string): void {
    this.add(kind, 'ok');
  }

  retryable(kind: string, label: string): void {
    this.add(kind, label);
    this.retryableAt.push({ at: Date.now(), label });
  }

  failure(kind: string, what: string): void {
    this.add(kind, 'FAILURE');
    this.failures.push({ kind, what, at: Date.now() });
  }

  /** Runs one request of `kind`, its errors sorted into retryable and failures. */
  async attempt<T>(kind: string, request: () => Promise<T>): Promise<{ outcome: Outcome; value?: T }> {
    try {
      const value = await request();
      this.ok(kind);
      return { outcome: 'ok', value };
    } catch (error) {
      if (error instanceof Retryable) this.retryable(kind, error.label);
      else if (error instanceof WrongAnswer) this.failure(kind, error.message);
      else {
        const label = networkLabel(error);
        if (!label) {
          this.failure(kind, `threw ${error instanceof Error ? error.stack : String(error)}`);
          return { outcome: 'failure' };
        }
        this.retryable(kind, label);
      }
      return { outcome: error instanceof WrongAnswer ? 'failure' : 'retryable' };
    }
  }

  /** As `attempt`: the value when it succeeded. */
  async run<T>(kind: string, request: () => Promise<T>): Promise<T | undefined> {
    return (await this.attempt(kind, request)).value;
  }

  total(kind?: string): number {
    let sum = 0;
    for (const [k, labels] of this.counts) if (!kind || k === kind) for (const n of labels.values()) sum += n;
    return sum;
  }

  /** Retryable errors by label, over every kind. */
  retryableByLabel(): Map<string, number> {
    const by = new Map<string, number>();
    for (const labels of this.counts.values()) {
      for (const [label, n] of labels)
        if (label !== 'ok' && label !== 'FAILURE') by.set(label, (by.get(label) ?? 0) + n);
    }
    return by;
  }
}

/** A connection that failed or broke: fetch's errors carry the socket's code in their cause. */
export function networkLabel(error: unknown): string | undefined {
  let cause: unknown = error;
  for (let depth = 0; depth < 4 && cause; depth += 1) {
    const code = (cause as { code?: unknown }).code;
    if (code === 'ECONNRESET') return 'connection reset';
    if (code === 'ECONNREFUSED') return 'connection refused';
    if (code === 'UND_ERR_SOCKET') return 'connection closed';
    if (code === 'EPIPE') return 'connection closed';
    if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return 'timeout';
    if ((cause as Error).name === 'AbortError') return 'timeout';
    if ((cause as Error).message === 'terminated') {
      cause = (cause as { cause?: unknown }).cause ?? undefined;
      if (!cause) return 'connection closed';
      continue;
    }
    cause = (cause as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Checks a response's status: `expected` is fine; a 502, 503 or 504 that is not Waypost's own
 * problem+json is the balancer's (retryable); a 503 of Waypost's with Retry-After is retryable
 * too (a node shutting down, a busy image worker); anything else is a wrong answer.
 */
export async function expectStatus(response: Response, expected: number, what: string): Promise<void> {
  if (response.status === expected) return;
  const type = response.headers.get('content-type') ?? '';
  const body = await response.text().catch(() => '');
  const fromWaypost = type.startsWith('application/problem+json');
  if ([502, 503, 504].includes(response.status) && !fromWaypost) {
    throw new Retryable(`${response.status} from the balancer`);
  }
  if (response.status === 503 && response.headers.get('retry-after')) {
    throw new Retryable(`503 from Waypost (${/"code":"([^"]+)"/.exec(body)?.[1] ?? '?'})`);
  }
  throw new WrongAnswer(`${what}: ${response.status} ${body.slice(0, 300)}`);
}
