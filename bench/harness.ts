// What every benchmark script shares: servers in their own processes, loads from this one on
// loopback, medians. Bounded in time by each caller.
import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createInterface } from 'node:readline';
import { openDatabase } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { SERVER_NODE_FLAGS } from '../scripts/server-flags.mjs';

export const children: ChildProcess[] = [];

export function log(line: string) {
  process.stdout.write(`${line}\n`);
}

/** Starts a server script in its own Node process; resolves with the JSON line it prints. */
export async function start(script: string, args: string[], env: Record<string, string> = {}, nodeArgs: string[] = []) {
  // Waypost's server runs with the flags the `waypost` command gives it.
  const flags = script === 'server.ts' ? SERVER_NODE_FLAGS : [];
  const child = spawn(process.execPath, [...flags, ...nodeArgs, join(import.meta.dirname, script), ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const lines = createInterface({ input: child.stdout });
  for await (const line of lines) return { ...(JSON.parse(line) as { port: number; token?: string }), pid: child.pid! };
  throw new Error(`${script} exited before it was ready`);
}

/** The flags the checkout's servers run with (scripts/server-flags.mjs), when it has them. */
export async function serverFlags(checkout: string): Promise<string[]> {
  const file = join(checkout, 'scripts/server-flags.mjs');
  if (!existsSync(file)) return [];
  const flags = (await import(pathToFileURL(file).href)) as { SERVER_NODE_FLAGS?: string[] };
  return flags.SERVER_NODE_FLAGS ?? [];
}

export async function migratedDb(dir: string, name: string): Promise<string> {
  const path = join(dir, name);
  const database = openDatabase({ sqlitePath: path });
  await migrateToLatest(database);
  await database.close();
  return path;
}

export interface Load {
  rps: number;
  p99: number;
  non2xx: number;
  /** CPU time the server process used per answered request, in ms, when its pid was given:
   * what the machine's other load changes least. */
  cpuMs: number;
  /** The part of `cpuMs` spent in the kernel for the process (system time): its reads of the
   * database file, its sockets. */
  sysMs: number;
  /** CPU time the whole machine used per answered request, in ms: the server, its database's
   * processes (PostgreSQL's) and the load generator, which costs the same per request for every
   * server. */
  machineMs: number;
}

/** User and system CPU time of all the machine's processors so far, in ms (Linux /proc/stat). */
export function machineCpuMs(): number {
  const [user, nice, system, , , irq, softirq] = readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]!
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  return (user! + nice! + system! + irq! + softirq!) * 10;
}

/** User and system CPU time of a process so far, in ms (Linux /proc, 100 ticks a second). */
export function cpuMsOf(pid: number): number {
  const { user, system } = cpuTimesOf(pid);
  return user + system;
}

/** A process's user and system CPU time so far, each in ms (Linux /proc/<pid>/stat, fields 14
 * and 15, 100 ticks a second). */
export function cpuTimesOf(pid: number): { user: number; system: number } {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10 };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** A load of `seconds` after a warm-up; `path` may vary per request. */
export async function load(
  url: string,
  connections: number,
  seconds: number,
  options: { headers?: Record<string, string>; path?: () => string; pid?: number } = {},
): Promise<Load> {
  const { headers, path, pid } = options;
  const requests = path ? [{ setupRequest: (request: { path: string }) => ({ ...request, path: path() }) }] : undefined;
  const run = (duration: number) =>
    autocannon({
      url,
      connections,
      duration,
      ...(headers ? { headers } : {}),
      ...(requests ? { requests } : {}),
    } as autocannon.Options);
  await run(Math.min(3, seconds));
  const cpuBefore = pid === undefined ? undefined : cpuTimesOf(pid);
  const machineBefore = machineCpuMs();
  const result = await run(seconds);
  const answered = Math.max(1, result.requests.total);
  const cpuAfter = pid === undefined ? undefined : cpuTimesOf(pid);
  const [cpuMs, sysMs] =
    cpuBefore && cpuAfter
      ? [
          (cpuAfter.user + cpuAfter.system - cpuBefore.user - cpuBefore.system) / answered,
          (cpuAfter.system - cpuBefore.system) / answered,
        ]
      : [NaN, NaN];
  const machineMs = (machineCpuMs() - machineBefore) / answered;
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    non2xx: result.non2xx + result.errors,
    cpuMs,
    sysMs,
    machineMs,
  };
}

/** `spread` of a list: its lowest and highest, for BENCHMARKS.md. */
export function spread(values: number[], digits = 0): string {
  return `${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)}`;
}
