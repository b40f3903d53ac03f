// POST /posts to a group of three webhook services on loopback: 202 latency p50/p99
// under BENCH_CLIENTS concurrent clients and deliveries completed per second, beside the same
// receivers hit directly by a plain fetch loop in the same run. Waypost runs in its own process
// (bench/posts-delivery-server.ts); this process is the clients and the receivers.
//   node bench/posts-delivery.ts        (BENCH_DELIVERY_POSTS, BENCH_CLIENTS, WAYPOST_WORKER_CONCURRENCY)
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Webhook } from 'standardwebhooks';
import { Agent, fetch } from 'undici';

const POSTS = Number(process.env.BENCH_DELIVERY_POSTS ?? 2000);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 50);
const dispatcher = new Agent({ connections: CLIENTS * 2 });

// Three receivers that answer 200 at once and count what they got.
let received = 0;
let onReceived: () => void = () => {};
const receivers = await Promise.all(
  [0, 1, 2].map(async () => {
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        received += 1;
        onReceived();
        response.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook` };
  }),
);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/** Runs `total` requests from CLIENTS concurrent loops; returns sorted latencies (ms) and seconds taken. */
async function drive(total: number, send: (i: number) => Promise<number>) {
  const latencies: number[] = [];
  let next = 0;
  let failures = 0;
  const begin = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < total) {
        const i = next++;
        const start = performance.now();
        const status = await send(i);
        latencies.push(performance.now() - start);
        if (status >= 300) failures += 1;
      }
    }),
  );
  return { latencies: latencies.sort((a, b) => a - b), seconds: (performance.now() - begin) / 1000, failures };
}

const waitFor = (count: number) =>
  new Promise<void>((resolve) => {
    onReceived = () => received >= count && resolve();
    onReceived();
  });

// The server.
const dataDir = mkdtempSync(join(tmpdir(), 'waypost-bench-delivery-'));
const child = spawn(
  process.execPath,
  [join(import.meta.dirname, 'posts-delivery-server.ts'), ...receivers.map((r) => r.url)],
  {
    env: {
      ...process.env,
      WAYPOST_DATA_DIR: dataDir,
      WAYPOST_LOG_LEVEL: 'silent',
      WAYPOST_OUTBOUND_ALLOW: 'loopback',
      WAYPOST_SECRET_KEY: 'b2'.repeat(32),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
let ready: { port: number; token: string; group: string; secret: string } | undefined;
for await (const line of createInterface({ input: child.stdout })) {
  ready = JSON.parse(line) as typeof ready;
  break;
}
if (!ready) throw new Error('the server did not start');
const { port, token, group, secret } = ready;

// Baseline: the same receivers, the same signed payload, sent straight by a fetch loop.
const signer = new Webhook(secret);
async function direct(i: number): Promise<number> {
  const body = JSON.stringify({
    type: 'post.created',
    timestamp: new Date().toISOString(),
    data: { text: `post ${i}` },
  });
  const id = `msg_${i}`;
  const now = new Date();
  const response = await fetch(receivers[i % 3]?.url ?? '', {
    method: 'POST',
    dispatcher,
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': signer.sign(id, now, body),
    },
    body,
  });
  await response.arrayBuffer();
  return response.status;
}
async function viaWaypost(i: number): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${port}/posts`, {
    method: 'POST',
    dispatcher,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ text: `post ${i}`, groups: [group] }),
  });
  await response.arrayBuffer();
  return response.status;
}

// Warm-up of both paths, then the measured runs.
await drive(200, direct);
await drive(100, viaWaypost);
await waitFor(200 + 100 * 3);
received = 0;

const base = await drive(POSTS * 3, direct);
received = 0;
const begin = performance.now();
const posted = await drive(POSTS, viaWaypost);
await waitFor(POSTS * 3);
const drained = (performance.now() - begin) / 1000;

const ms = (value: number) => value.toFixed(1);
const rows = [
  [
    'plain fetch loop to the receivers',
    `${POSTS * 3} requests`,
    ms(percentile(base.latencies, 50)),
    ms(percentile(base.latencies, 99)),
    ((POSTS * 3) / base.seconds).toFixed(0),
    String(base.failures),
  ],
  [
    'POST /posts (202), group of 3 webhooks',
    `${POSTS} posts`,
    ms(percentile(posted.latencies, 50)),
    ms(percentile(posted.latencies, 99)),
    (POSTS / posted.seconds).toFixed(0),
    String(posted.failures),
  ],
  ['webhook deliveries completed', `${POSTS * 3} deliveries`, '', '', ((POSTS * 3) / drained).toFixed(0), ''],
];
process.stdout.write(
  `clients ${CLIENTS}, worker concurrency ${process.env.WAYPOST_WORKER_CONCURRENCY ?? '4 (default)'}, ` +
    `database ${process.env.DATABASE_URL ? 'PostgreSQL' : 'SQLite'}\n\n` +
    '| what | count | p50 ms | p99 ms | per second | non-2xx |\n|---|---|---|---|---|---|\n' +
    rows.map((row) => `| ${row.join(' | ')} |`).join('\n') +
    '\n',
);

child.kill('SIGTERM');
await new Promise((resolve) => child.on('exit', resolve));
for (const receiver of receivers) receiver.server.close();
await dispatcher.close();
rmSync(dataDir, { recursive: true, force: true });
