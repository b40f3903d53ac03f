// `npm run test:nodes`: the several-node test (docs/scaling.md "The several-node test"). Starts
// the topology of README "Scaling out" on loopback (PostgreSQL, an S3 server, two servers with
// WAYPOST_INLINE_WORKER=false, two `waypost worker`s, HAProxy in front), runs a steady mixed
// load through the balancer, kills a server with SIGKILL, then a worker, starts them again, and
// checks that nothing acknowledged was lost, every delivery and import ended, no job stayed
// leased by the dead, and the clients saw only retryable errors, and those only while a server
// died. Then it measures one server against two. Prints the report; exits 1 on any problem.
//
// Needs PostgreSQL (NODES_POSTGRES_URL, default postgres://postgres@127.0.0.1:5432; a fresh
// database is made and dropped), an S3 server (NODES_S3_ENDPOINT and keys, else one started
// with the s3-server script as .ci/run finds it), ffmpeg and HAProxy (Debian's haproxy,
// installed when missing and this process may). NODES_THROUGHPUT=0 skips the measurement.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  checkImports,
  checkJobs,
  checkMedia,
  checkPoints,
  checkPosts,
  drain,
  jobsHeldBy,
  LeaseSampler,
  waitForJob,
  type Check,
} from './nodes/checks.ts';
import { Cluster } from './nodes/cluster.ts';
import { startLoad, type Ledger } from './nodes/load.ts';
import { createAccount, createServices, makeVideos, signIn } from './nodes/setup.ts';
import { networkLabel, Tally } from './nodes/tally.ts';
import { measureThroughput, type Round } from './nodes/throughput.ts';
import { WebhookReceiver } from './nodes/webhooks.ts';

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
const began = Date.now();
const since = (at: number) => `${((at - began) / 1000).toFixed(1)} s`;
const say = (line: string) => process.stdout.write(`${line}\n`);

/** HAProxy from Debian's package when it is missing (as scripts/test.ts installs Chromium). */
function ensureHaproxy(): void {
  if (spawnSync('haproxy', ['-v']).status === 0) return;
  if (process.getuid?.() !== 0) throw new Error('HAProxy is needed: sudo apt-get install haproxy');
  say("installing Debian's haproxy (once)");
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [['update'], ['install', '-y', 'haproxy']]) {
    if (spawnSync('apt-get', args, { stdio: 'inherit', env }).status !== 0)
      throw new Error('could not install haproxy');
  }
}

const events: { at: number; what: string }[] = [];
function event(what: string): number {
  const at = Date.now();
  events.push({ at, what });
  say(`[${since(at)}] ${what}`);
  return at;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

async function main(): Promise<boolean> {
  ensureHaproxy();
  const dir = mkdtempSync(join(tmpdir(), 'waypost-nodes-'));
  const cluster = new Cluster(dir);
  process.once('exit', () => cluster.killAllNow());
  const receiver = new WebhookReceiver();
  const sampler = new LeaseSampler();
  let passed = false;
  try {
    await cluster.reservePorts();
    await cluster.startBackends();
    event(`PostgreSQL database and S3 bucket ready (${cluster.s3!.endpoint}); run folder ${dir}`);
    for (const name of ['node-a', 'node-b']) cluster.add(name, 'server');
    for (const name of ['worker-1', 'worker-2']) cluster.add(name, 'worker');
    await Promise.all([...cluster.procs.keys()].map((name) => cluster.start(name)));
    await cluster.startBalancer();
    event(`2 servers, 2 workers and HAProxy at ${cluster.baseUrl} are up`);

    await receiver.start(150);
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    receiver.setSecret(secret);
    await createAccount(cluster.databaseUrl);
    const session = await signIn(cluster.baseUrl);
    const services = await createServices(cluster.baseUrl, session.accessToken, receiver.url, secret);
    const videos = makeVideos(dir, 4);
    await sampler.start(cluster.databaseUrl);
    event('account, OAuth tokens (through the pages), webhook, group and tracker made; load starts');

    const ledger: Ledger = {
      points: new Set(),
      media: [],
      posts: [],
      imports: [],
      exports: 0,
      refreshes: 0,
      chainsLost: 0,
    };
    const tally = new Tally();
    let stop = false;
    const load = startLoad({ baseUrl: cluster.baseUrl, session, services, videos, tally, ledger, stopped: () => stop });
    const windows: [number, number][] = [];
    await sleep(15_000);
    const killedServer = event('SIGKILL node-a');
    await cluster.kill('node-a');
    windows.push([killedServer, killedServer + 10_000]);
    await sleep(10_000);
    await cluster.start('node-a');
    event('node-a started again');
    await sleep(10_000);
    // Killed while it runs an import (in its child process) if one comes its way within 20 s.
    const deadWorker = cluster.procs.get('worker-1')!.workerIds.at(-1)!;
    await waitForJob(cluster.databaseUrl, deadWorker, 'import', 20_000);
    event(`SIGKILL worker-1 (worker ${deadWorker})`);
    await cluster.kill('worker-1');
    const inHand = await jobsHeldBy(cluster.databaseUrl, deadWorker);
    event(`worker-1 had ${inHand.length} jobs in hand: ${inHand.map((job) => job.kind).join(', ')}`);
    await sleep(15_000);
    await cluster.start('worker-1');
    event('worker-1 started again');
    await sleep(10_000);
    stop = true;
    await load;
    event(`load stopped after ${tally.total()} requests`);
    const drained = await drain(cluster.databaseUrl, 300_000);
    event(drained ? 'queue drained' : 'queue NOT drained within 5 minutes');
    await sampler.stop();

    const nodes = ['node-a', 'node-b'].map((name) => ({ name, port: cluster.procs.get(name)!.port! }));
    const checks: Check[] = [
      await checkPoints(cluster.databaseUrl, ledger),
      await checkMedia(ledger, nodes, session.accessToken),
      ...(await checkPosts(cluster.databaseUrl, ledger, receiver.arrivals)),
      await checkImports(cluster.databaseUrl, ledger),
      await checkJobs(cluster.databaseUrl, deadWorker, inHand, sampler),
      clientCheck(tally, windows, ledger),
      {
        name: 'webhook signatures',
        detail: `${receiver.arrivals.length} verified`,
        problems: receiver.refused.map((r) => `refused: ${r}`),
      },
    ];
    if (!drained) checks.push({ name: 'queue', detail: 'not drained', problems: ['jobs still due after 5 minutes'] });
    const stats = await cluster.balancerStats();
    event('checks done');

    let rounds: Round[] = [];
    if (process.env.NODES_THROUGHPUT !== '0') {
      rounds = await measureThroughput(cluster, {
        token: session.accessToken,
        services,
        clients: 12,
        seconds: 8,
        rounds: 3,
      });
      event('throughput measured');
    }
    report(tally, ledger, checks, stats, cluster, rounds);
    passed = checks.every((check) => check.problems.length === 0);
    writeFileSync(
      join(dir, 'result.json'),
      JSON.stringify({ events, checks, rounds, counts: [...tally.counts].map(([k, v]) => [k, [...v]]) }, null, 2),
    );
    return passed;
  } finally {
    await receiver.stop();
    await cluster.stop();
    if (passed && process.env.NODES_KEEP !== '1') rmSync(dir, { recursive: true, force: true });
    else say(`logs kept in ${dir}`);
    say(`took ${since(Date.now())}`);
  }
}

/** The clients' side: no failure at all, and retryable errors only within a server's death. */
function clientCheck(tally: Tally, windows: [number, number][], ledger: Ledger): Check {
  const outside = tally.retryableAt.filter(({ at }) => !windows.some(([from, to]) => at >= from && at <= to));
  return {
    name: 'what the clients saw',
    detail:
      `${tally.total()} requests, ${tally.total() - tally.failures.length - tally.retryableAt.length} answered as expected, ` +
      `${tally.retryableAt.length} retryable errors, ${tally.failures.length} failures; ` +
      `${ledger.exports} exports read whole, ${ledger.refreshes} token refreshes, ${ledger.chainsLost} refresh chains restarted`,
    problems: [
      ...tally.failures.map((f) => `${f.kind} at ${since(f.at)}: ${f.what}`),
      ...outside.map((r) => `retryable error outside a server's death at ${since(r.at)}: ${r.label}`),
    ],
  };
}

function report(
  tally: Tally,
  ledger: Ledger,
  checks: Check[],
  stats: Map<string, Record<string, number>>,
  cluster: Cluster,
  rounds: Round[],
): void {
  say('\n== requests through the balancer, by kind and outcome');
  for (const [kind, labels] of [...tally.counts].sort()) {
    say(`  ${kind.padEnd(16)} ${[...labels].map(([label, n]) => `${n} ${label}`).join(', ')}`);
  }
  say('== retryable errors by kind');
  for (const [label, n] of tally.retryableByLabel()) say(`  ${n} ${label}`);
  say('== what each server did (HAProxy statistics)');
  for (const [name, s] of stats) {
    say(
      `  ${name}: ${s.stot} requests, ${s.hrsp_2xx} 2xx, ${s.hrsp_4xx} 4xx, ${s.hrsp_5xx} 5xx; ` +
        `${s.eresp} broken answers, ${s.econ} refused connections, ${s.wredis} redispatched, ${s.chkdown} times marked down`,
    );
  }
  say('== processes');
  for (const proc of cluster.procs.values()) {
    say(
      `  ${proc.name}: started ${proc.starts}x, killed ${proc.kills}x${proc.workerIds.length ? `, worker ids ${proc.workerIds.join(', ')}` : ''}`,
    );
  }
  say('== checks');
  for (const check of checks) {
    say(`  ${check.problems.length === 0 ? 'ok  ' : 'FAIL'} ${check.name}: ${check.detail}`);
    for (const problem of check.problems.slice(0, 20)) say(`       ${problem}`);
    if (check.problems.length > 20) say(`       ... and ${check.problems.length - 20} more`);
  }
  if (rounds.length > 0) {
    say(
      '== throughput, one server against two behind HAProxy (12 clients, mix of tracker batch, private page, public page)',
    );
    for (const r of rounds) {
      const cpu = Object.entries(r.cpu)
        .map(([name, s]) => `${name} ${(s / r.seconds).toFixed(2)}`)
        .join(', ');
      say(
        `  ${r.nodes} node(s): ${(r.requests / r.seconds).toFixed(0)} req/s (${r.errors} errors); CPU cores busy: ${cpu}`,
      );
    }
    for (const nodes of [1, 2] as const) {
      const rates = rounds.filter((r) => r.nodes === nodes).map((r) => r.requests / r.seconds);
      say(
        `  median ${nodes} node(s): ${median(rates).toFixed(0)} req/s (min ${Math.min(...rates).toFixed(0)}, max ${Math.max(...rates).toFixed(0)})`,
      );
    }
  }
  say(
    `== points ${ledger.points.size}, media ${ledger.media.length}, posts ${ledger.posts.length}, imports ${ledger.imports.length}`,
  );
}

// undici can reject a request body's stream a second time, with no one to hear it, when the
// server's side closes mid-upload (a killed node); the request's own promise already failed and
// was counted. Any other stray rejection ends the run.
let stray = 0;
process.on('unhandledRejection', (error) => {
  if (!networkLabel(error)) throw error;
  stray += 1;
});

const ok = await main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  return false;
});
if (stray > 0) say(`(${stray} stray connection errors of requests already counted)`);
say(ok ? 'PASSED' : 'FAILED');
process.exit(ok ? 0 : 1);
