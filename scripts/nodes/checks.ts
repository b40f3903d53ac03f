// What the several-node test holds the cluster to once the load stopped and the queue drained
// (docs/scaling.md "The several-node test"): nothing acknowledged is lost, every medium reads
// back with its bytes through every node, every delivery arrived (repeats only under one
// `webhook-id`), every import ended (a failure with its reason), and no job is left leased by a
// dead worker. Each check is a line of the report: what it counted, and what was wrong.
import { createHash } from 'node:crypto';
import pg from 'pg';
import { IMPORT_POINTS, type Ledger } from './load.ts';
import type { Arrival } from './webhooks.ts';

export interface Check {
  name: string;
  detail: string;
  problems: string[];
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

async function query<T extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** Waits until no job that is due is queued or running (every delivery, import and refresh ran); false after `ms`. */
export async function drain(url: string, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const [row] = await query<{ n: string }>(
      url,
      `select count(*) as n from jobs where status in ('queued', 'running') and run_at <= $1`,
      [Date.now()],
    );
    if (Number(row!.n) === 0) return true;
    await sleep(500);
  }
  return false;
}

/** Every job id seen running, with the workers seen holding it: sampled while the load runs. */
export class LeaseSampler {
  readonly holders = new Map<string, { kind: string; workers: Set<string> }>();
  private timer: NodeJS.Timeout | undefined;
  private client: pg.Client | undefined;

  async start(url: string): Promise<void> {
    this.client = new pg.Client({ connectionString: url });
    await this.client.connect();
    const sample = async () => {
      const { rows } = await this.client!.query<{ id: string; kind: string; locked_by: string }>(
        `select id, kind, locked_by from jobs where status = 'running' and locked_by is not null`,
      );
      for (const row of rows) {
        const seen = this.holders.get(row.id) ?? { kind: row.kind, workers: new Set<string>() };
        seen.workers.add(row.locked_by);
        this.holders.set(row.id, seen);
      }
    };
    this.timer = setInterval(() => void sample().catch(() => undefined), 200);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.client?.end();
  }
}

export async function checkPoints(url: string, ledger: Ledger): Promise<Check> {
  const rows = await query<{ time: string; lat: number; lon: number }>(
    url,
    `select time, lat, lon from locations where time >= $1`,
    [Date.UTC(2024, 0, 1)],
  );
  const stored = new Set(rows.map((r) => `${Number(r.time)} ${Number(r.lat).toFixed(4)} ${Number(r.lon).toFixed(4)}`));
  const lost = [...ledger.points].filter((point) => !stored.has(point));
  return {
    name: 'tracker points',
    detail: `${ledger.points.size} acknowledged, ${stored.size} stored`,
    problems: lost.slice(0, 10).map((point) => `acknowledged point ${point} is missing`),
  };
}

/** Every acknowledged medium read through each node directly: its bytes have the SHA-256 acknowledged. */
export async function checkMedia(ledger: Ledger, nodes: { name: string; port: number }[], token: string) {
  const problems: string[] = [];
  let reads = 0;
  for (const medium of ledger.media) {
    for (const node of nodes) {
      const response = await fetch(`http://127.0.0.1:${node.port}/media/id/${medium.id}/file`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const bytes = new Uint8Array(await response.arrayBuffer());
      reads += 1;
      const hash = createHash('sha256').update(bytes).digest('hex');
      if (response.status !== 200 || hash !== medium.sha256) {
        problems.push(`medium ${medium.id} through ${node.name}: ${response.status}, ${bytes.length} bytes`);
      }
    }
  }
  const kinds = ledger.media.filter((m) => m.kind === 'video').length;
  return {
    name: 'media',
    detail: `${ledger.media.length} acknowledged (${kinds} videos), ${reads} reads through ${nodes.length} nodes`,
    problems,
  };
}

export async function checkPosts(url: string, ledger: Ledger, arrivals: Arrival[]): Promise<Check[]> {
  const ids = ledger.posts.map((post) => post.id);
  const rows = await query<{ id: string; text: string }>(url, `select id, text from posts where id = any($1)`, [ids]);
  const stored = new Map(rows.map((row) => [row.id, row.text]));
  const problems = ledger.posts
    .filter((post) => stored.get(post.id) !== post.text)
    .map((post) => `acknowledged post ${post.id} is ${stored.has(post.id) ? 'changed' : 'missing'}`);
  const byPost = new Map<string, Set<string>>();
  const count = new Map<string, number>();
  for (const arrival of arrivals) {
    byPost.set(arrival.postId, (byPost.get(arrival.postId) ?? new Set()).add(arrival.webhookId));
    count.set(arrival.postId, (count.get(arrival.postId) ?? 0) + 1);
  }
  const deliveryProblems: string[] = [];
  for (const post of ledger.posts) {
    const webhookIds = byPost.get(post.id);
    if (!webhookIds) deliveryProblems.push(`post ${post.id} never arrived at its webhook`);
    else if (webhookIds.size > 1) deliveryProblems.push(`post ${post.id} arrived under ${webhookIds.size} webhook-ids`);
  }
  const unknown = [...byPost.keys()].filter((id) => !stored.has(id)).length;
  const statuses = await query<{ status: string; n: string }>(
    url,
    `select status, count(*) as n from deliveries group by status order by status`,
  );
  const repeats = [...count.values()].reduce((sum, n) => sum + n - 1, 0);
  return [
    { name: 'posts', detail: `${ledger.posts.length} acknowledged, all stored with their text`, problems },
    {
      name: 'deliveries',
      detail:
        `${arrivals.length} arrivals for ${byPost.size} posts (${repeats} repeats, each under its first webhook-id; ` +
        `${unknown} for posts whose answer the client never got); ` +
        `records: ${statuses.map((s) => `${s.n} ${s.status}`).join(', ')}`,
      problems: [
        ...deliveryProblems,
        ...statuses.filter((s) => s.status !== 'delivered').map((s) => `${s.n} deliveries ${s.status}`),
      ],
    },
  ];
}

export async function checkImports(url: string, ledger: Ledger): Promise<Check> {
  const rows = await query<{ id: string; status: string; errors: string; points_seen: number; points_stored: number }>(
    url,
    `select id, status, errors, points_seen, points_stored from imports`,
  );
  const byId = new Map(rows.map((row) => [row.id, row]));
  const problems: string[] = [];
  for (const id of ledger.imports) if (!byId.has(id)) problems.push(`acknowledged import ${id} is missing`);
  for (const row of rows) {
    if (row.status === 'failed' && (JSON.parse(row.errors) as unknown[]).length === 0)
      problems.push(`import ${row.id} failed without a reason`);
    else if (row.status === 'done' && Number(row.points_seen) !== IMPORT_POINTS)
      problems.push(`import ${row.id} saw ${row.points_seen} of ${IMPORT_POINTS} points`);
    else if (row.status !== 'done' && row.status !== 'failed') problems.push(`import ${row.id} is still ${row.status}`);
  }
  const done = rows.filter((row) => row.status === 'done').length;
  const failed = rows.filter((row) => row.status === 'failed');
  const reasons = [
    ...new Set(failed.map((row) => (JSON.parse(row.errors) as { message?: string }[])[0]?.message ?? '?')),
  ];
  return {
    name: 'imports',
    detail: `${ledger.imports.length} acknowledged, ${rows.length} in all: ${done} done, ${failed.length} failed${reasons.length ? ` (${reasons.join('; ')})` : ''}`,
    problems,
  };
}

/** The jobs a worker holds now (status running under its id): what it had in hand when it was killed. */
export async function jobsHeldBy(url: string, workerId: string): Promise<{ id: string; kind: string }[]> {
  return query(url, `select id, kind from jobs where status = 'running' and locked_by = $1 order by kind, id`, [
    workerId,
  ]);
}

/** Waits until `workerId` holds a job of `kind` (up to `ms`); whether it does. */
export async function waitForJob(url: string, workerId: string, kind: string, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if ((await jobsHeldBy(url, workerId)).some((job) => job.kind === kind)) return true;
    await sleep(100);
  }
  return false;
}

/** No job is running under a dead worker's id, nor past its lease; the dead workers' jobs were finished by others. */
export async function checkJobs(
  url: string,
  deadWorker: string,
  inHand: { id: string; kind: string }[],
  sampler: LeaseSampler,
): Promise<Check> {
  const now = Date.now();
  const stale = await query<{ id: string; kind: string; locked_by: string }>(
    url,
    `select id, kind, locked_by from jobs where status = 'running' and (locked_by = $1 or locked_until < $2)`,
    [deadWorker, now],
  );
  const finals = await query<{ id: string; status: string; attempts: number }>(
    url,
    `select id, status, attempts from jobs where id = any($1)`,
    [inHand.map((job) => job.id)],
  );
  const unfinished = finals.filter((row) => row.status !== 'done' && row.status !== 'failed');
  const takenOver = inHand.filter((job) => (sampler.holders.get(job.id)?.workers.size ?? 0) > 1).length;
  const kinds = new Map<string, number>();
  for (const job of inHand) kinds.set(job.kind, (kinds.get(job.kind) ?? 0) + 1);
  const ended = await query<{ kind: string; status: string; n: string; retried: string }>(
    url,
    `select kind, status, count(*) as n, count(*) filter (where attempts > 1) as retried
      from jobs group by kind, status order by kind, status`,
  );
  return {
    name: 'jobs and leases',
    detail:
      `${sampler.holders.size} jobs seen running; the killed worker had ${inHand.length} in hand ` +
      `(${[...kinds].map(([k, n]) => `${n} ${k}`).join(', ') || 'none'}): ` +
      `${finals.filter((r) => r.status === 'done').length} done since, ${finals.filter((r) => r.status === 'failed').length} failed, ` +
      `${takenOver} seen running under another worker; none running past its lease. All jobs: ` +
      ended.map((row) => `${row.kind} ${row.status} ${row.n} (${row.retried} after a retry)`).join(', '),
    problems: [
      ...ended.filter((row) => row.status === 'failed').map((row) => `${row.n} ${row.kind} jobs failed`),
      ...stale.map((job) => `job ${job.id} (${job.kind}) still leased by ${job.locked_by}`),
      ...unfinished.map((job) => `job ${job.id} of the killed worker is ${job.status}`),
      ...(inHand.length === 0 ? ['the killed worker held no job: nothing was taken over'] : []),
    ],
  };
}
