// One node against two behind the balancer (docs/scaling.md "The several-node test"): the same closed-loop
// mix of requests (a tracker batch of 25 points, a page of the owner's private posts, the
// public profile page) from a fixed number of clients, with the second server in HAProxy's
// maintenance state or serving; rounds alternate, and each reports its requests a second and
// the CPU seconds each process spent, which says where the time went.
import { Cluster } from './cluster.ts';
import type { Services } from './setup.ts';
import { USERNAME } from './setup.ts';

export interface Round {
  nodes: 1 | 2;
  requests: number;
  errors: number;
  seconds: number;
  /** CPU seconds by process over the round: node-a, node-b, haproxy, postgres (this database's backends), the load. */
  cpu: Record<string, number>;
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
let nextPoint = 0;
const POINTS_FROM = Date.UTC(2025, 0, 1);

async function one(baseUrl: string, token: string, services: Services, n: number): Promise<boolean> {
  const which = n % 3;
  let response: Response;
  if (which === 0) {
    const locations = Array.from({ length: 25 }, () => {
      const i = nextPoint++;
      return {
        type: 'Feature',
        geometry: { type: 'Point', coordinates: [12 + (i % 1000) * 0.0001, 49 + Math.floor(i / 1000) * 0.0001] },
        properties: { timestamp: new Date(POINTS_FROM + i * 1000).toISOString() },
      };
    });
    response = await fetch(services.ingestUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${services.ingestToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ locations }),
    });
  } else if (which === 1) {
    response = await fetch(`${baseUrl}/posts/private?count=20`, { headers: { authorization: `Bearer ${token}` } });
  } else {
    response = await fetch(`${baseUrl}/@${USERNAME}`);
  }
  await response.arrayBuffer();
  return response.ok;
}

async function round(
  cluster: Cluster,
  nodes: 1 | 2,
  o: { token: string; services: Services; clients: number; seconds: number },
): Promise<Round> {
  await cluster.balancer(`set server nodes/node-b state ${nodes === 1 ? 'maint' : 'ready'}`);
  await sleep(2500); // health checks see node-b up again (rise 2 at 1 s)
  const pids: Record<string, number[]> = {
    'node-a': [cluster.procs.get('node-a')!.child!.pid!],
    'node-b': [cluster.procs.get('node-b')!.child!.pid!],
    haproxy: [cluster.balancerPid!],
    postgres: await cluster.databasePids(),
  };
  const before = new Map(
    Object.values(pids)
      .flat()
      .map((pid) => [pid, Cluster.cpuSeconds(pid)]),
  );
  // A process gone by the end (a pooled connection closed) is left out rather than counted as less.
  const cpu = (list: number[]) =>
    list.reduce((sum, pid) => {
      const now = Cluster.cpuSeconds(pid);
      return now === 0 ? sum : sum + now - before.get(pid)!;
    }, 0);
  const load = process.cpuUsage();
  let requests = 0;
  let errors = 0;
  let n = 0;
  const start = performance.now();
  const end = start + o.seconds * 1000;
  await Promise.all(
    Array.from({ length: o.clients }, async () => {
      while (performance.now() < end) {
        const ok = await one(cluster.baseUrl, o.token, o.services, n++).catch(() => false);
        if (ok) requests += 1;
        else errors += 1;
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  const used = process.cpuUsage(load);
  const spent = Object.fromEntries(Object.entries(pids).map(([name, list]) => [name, cpu(list)]));
  spent.load = (used.user + used.system) / 1e6;
  return { nodes, requests, errors, seconds, cpu: spent };
}

/** `rounds` rounds of each, alternating 1, 2, 1, 2...; node-b is serving again afterwards. */
export async function measureThroughput(
  cluster: Cluster,
  o: { token: string; services: Services; clients: number; seconds: number; rounds: number },
): Promise<Round[]> {
  const rounds: Round[] = [];
  // A short warm-up of both, not counted.
  await round(cluster, 2, { ...o, seconds: 3 });
  for (let i = 0; i < o.rounds; i += 1) {
    rounds.push(await round(cluster, 1, o));
    rounds.push(await round(cluster, 2, o));
  }
  await cluster.balancer('set server nodes/node-b state ready');
  return rounds;
}
