// The several-node topology of README "Scaling out", on loopback (docs/scaling.md "The
// several-node test"): a fresh PostgreSQL database, an S3 server and bucket, Waypost servers
// with WAYPOST_INLINE_WORKER=false, `waypost worker` processes, and HAProxy in front. Each
// process is the real command (src/cli.ts under the server's Node flags), started, killed with
// SIGKILL and started again by name; its log is a file of JSON lines in the run's folder.
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import pg from 'pg';
import { freePort } from '../../test/server.ts';
import { SERVER_NODE_FLAGS } from '../server-flags.mjs';

const ROOT = resolve(import.meta.dirname, '../..');
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

export interface S3 {
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  bucket: string;
}

export interface Proc {
  name: string;
  role: 'server' | 'worker';
  port: number | undefined;
  child: ChildProcess | undefined;
  /** Each start's worker id (workers), from the log. */
  workerIds: string[];
  starts: number;
  kills: number;
}

/** The s3-server script: S3_SERVER, else shared/tools/s3-server in a folder above this one (as .ci/run looks). */
function findS3Server(): string | undefined {
  if (process.env.S3_SERVER) return process.env.S3_SERVER;
  for (let dir = dirname(ROOT); dir !== dirname(dir); dir = dirname(dir)) {
    const path = join(dir, 'shared', 'tools', 's3-server');
    if (existsSync(path)) return path;
  }
  return undefined;
}

async function adminQuery(url: string, statement: string): Promise<void> {
  const target = new URL(url);
  target.pathname = '/postgres';
  const client = new pg.Client({ connectionString: target.toString() });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

export class Cluster {
  readonly dir: string;
  readonly procs = new Map<string, Proc>();
  databaseUrl = '';
  s3: S3 | undefined;
  lbPort = 0;
  private dbName = '';
  private s3Dir: string | undefined;
  private haproxy: ChildProcess | undefined;
  private readonly secretKey = randomBytes(32).toString('hex');

  constructor(dir: string) {
    this.dir = dir;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.lbPort}`;
  }

  /** PostgreSQL (a fresh database) and the S3 server (NODES_S3_* to use a running one), then the schema. */
  async startBackends(): Promise<void> {
    const server = process.env.NODES_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432';
    this.dbName = `waypost_nodes_${Date.now()}_${process.pid}`;
    await adminQuery(server, `create database ${this.dbName}`);
    this.databaseUrl = `${server}/${this.dbName}`;
    let s3: Omit<S3, 'bucket'>;
    if (process.env.NODES_S3_ENDPOINT) {
      s3 = {
        endpoint: process.env.NODES_S3_ENDPOINT,
        accessKeyId: process.env.NODES_S3_ACCESS_KEY_ID ?? '',
        secretAccessKey: process.env.NODES_S3_SECRET_ACCESS_KEY ?? '',
        region: process.env.NODES_S3_REGION ?? 'us-east-1',
      };
    } else {
      const script = findS3Server();
      if (!script)
        throw new Error('no S3 server: set NODES_S3_ENDPOINT (and its keys), or S3_SERVER to an s3-server script');
      this.s3Dir = join(this.dir, 's3');
      const started = spawnSync(script, ['start', this.s3Dir, String(await freePort())], { encoding: 'utf8' });
      if (started.status !== 0) throw new Error(`s3-server did not start: ${started.stderr}`);
      const value = (name: string) => new RegExp(`^${name}=(.*)$`, 'm').exec(started.stdout)?.[1] ?? '';
      s3 = {
        endpoint: value('S3_ENDPOINT'),
        accessKeyId: value('S3_ACCESS_KEY_ID'),
        secretAccessKey: value('S3_SECRET_ACCESS_KEY'),
        region: value('S3_REGION'),
      };
    }
    this.s3 = { ...s3, bucket: `waypost-nodes-${Date.now()}` };
    const client = this.s3Client();
    await client.send(new CreateBucketCommand({ Bucket: this.s3.bucket }));
    client.destroy();
    const migrated = spawnSync(process.execPath, ['src/cli.ts', 'migrate'], { cwd: ROOT, env: this.env('migrate') });
    if (migrated.status !== 0) throw new Error(`waypost migrate failed: ${migrated.stderr.toString()}`);
  }

  s3Client(): S3Client {
    const s3 = this.s3!;
    return new S3Client({
      endpoint: s3.endpoint,
      region: s3.region,
      forcePathStyle: true,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  /** The environment of every Waypost process: one database, one bucket, one secret, the balancer's address. */
  env(name: string, port?: number): NodeJS.ProcessEnv {
    const s3 = this.s3!;
    return {
      PATH: process.env.PATH,
      DATABASE_URL: this.databaseUrl,
      WAYPOST_DATA_DIR: join(this.dir, 'data', name),
      WAYPOST_SECRET_KEY: this.secretKey,
      WAYPOST_BASE_URL: this.baseUrl,
      WAYPOST_HOST: '127.0.0.1',
      WAYPOST_PORT: String(port ?? 0),
      WAYPOST_LOG_FORMAT: 'json',
      WAYPOST_LOG_LEVEL: 'info',
      WAYPOST_INLINE_WORKER: 'false',
      WAYPOST_TRUST_PROXY: 'true',
      WAYPOST_OUTBOUND_ALLOW: 'loopback',
      // Short enough that a killed worker's jobs come back within the test.
      WAYPOST_JOB_LEASE_SECONDS: '10',
      WAYPOST_RETRY_BASE_SECONDS: '1',
      WAYPOST_RETRY_MAX_SECONDS: '5',
      WAYPOST_STORAGE: 's3',
      WAYPOST_S3_ENDPOINT: s3.endpoint,
      WAYPOST_S3_BUCKET: s3.bucket,
      WAYPOST_S3_REGION: s3.region,
      WAYPOST_S3_ACCESS_KEY_ID: s3.accessKeyId,
      WAYPOST_S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
      WAYPOST_S3_FORCE_PATH_STYLE: 'true',
    };
  }

  /** Reserves the balancer's port (the processes' base URL) before any of them starts. */
  async reservePorts(): Promise<void> {
    this.lbPort = await freePort();
  }

  add(name: string, role: Proc['role']): Proc {
    const proc: Proc = { name, role, port: undefined, child: undefined, workerIds: [], starts: 0, kills: 0 };
    this.procs.set(name, proc);
    return proc;
  }

  logPath(name: string): string {
    return join(this.dir, `${name}.log`);
  }

  /** Starts (or starts again) a process and waits until it serves (/readyz) or works (its log says so). */
  async start(name: string): Promise<void> {
    const proc = this.procs.get(name)!;
    proc.port ??= proc.role === 'server' ? await freePort() : undefined;
    const log = openSync(this.logPath(name), 'a');
    const command = proc.role === 'server' ? 'serve' : 'worker';
    proc.child = spawn(process.execPath, [...SERVER_NODE_FLAGS, 'src/cli.ts', command], {
      cwd: ROOT,
      env: this.env(name, proc.port),
      stdio: ['ignore', log, log],
    });
    proc.starts += 1;
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      if (proc.child.exitCode !== null) throw new Error(`${name} exited at start; see ${this.logPath(name)}`);
      if (proc.role === 'server') {
        const ready = await fetch(`http://127.0.0.1:${proc.port}/readyz`).catch(() => undefined);
        if (ready?.status === 200) return;
      } else {
        const ids = this.workerIdsInLog(name);
        if (ids.length === proc.starts) {
          proc.workerIds = ids;
          return;
        }
      }
      await sleep(200);
    }
    throw new Error(`${name} did not start within a minute; see ${this.logPath(name)}`);
  }

  private workerIdsInLog(name: string): string[] {
    const ids: string[] = [];
    for (const line of readFileSync(this.logPath(name), 'utf8').split('\n')) {
      if (!line.includes('Waypost worker is running')) continue;
      ids.push((JSON.parse(line) as { worker: string }).worker);
    }
    return ids;
  }

  /** SIGKILL: no shutdown, no goodbye; in-flight requests and jobs are cut where they are. */
  async kill(name: string): Promise<void> {
    const proc = this.procs.get(name)!;
    const child = proc.child!;
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGKILL');
    await exited;
    proc.kills += 1;
  }

  /** CPU seconds a process has used (user + system), from /proc. */
  static cpuSeconds(pid: number | undefined): number {
    if (pid === undefined) return 0;
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return (Number(fields[11]) + Number(fields[12])) / 100;
    } catch {
      return 0;
    }
  }

  /** The PostgreSQL backends serving this run's database (their CPU is the database's work for it). */
  async databasePids(): Promise<number[]> {
    const client = new pg.Client({ connectionString: this.databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ pid: number }>(
        'select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
      );
      return rows.map((row) => row.pid);
    } finally {
      await client.end();
    }
  }

  /** HAProxy in front of the servers: round robin, health checks on /readyz, a refused connection retried on the other. */
  async startBalancer(): Promise<void> {
    const servers = [...this.procs.values()].filter((proc) => proc.role === 'server');
    const config = [
      'global',
      '  maxconn 2000',
      `  stats socket ${join(this.dir, 'haproxy.sock')} mode 600 level admin`,
      'defaults',
      '  mode http',
      '  timeout connect 2s',
      '  timeout client 120s',
      '  timeout server 120s',
      '  option forwardfor',
      '  retries 3',
      '  option redispatch 1',
      '  retry-on conn-failure',
      `frontend waypost`,
      `  bind 127.0.0.1:${this.lbPort}`,
      '  default_backend nodes',
      'backend nodes',
      '  balance roundrobin',
      '  option httpchk GET /readyz',
      // A dead node refuses the check's connection at once (down after 3 s); a live node slow to
      // answer on a loaded machine gets 3 s before a check counts as failed.
      '  timeout check 3s',
      ...servers.map((proc) => `  server ${proc.name} 127.0.0.1:${proc.port} check inter 1s fall 3 rise 2`),
      '',
    ].join('\n');
    const path = join(this.dir, 'haproxy.cfg');
    writeFileSync(path, config);
    const log = openSync(join(this.dir, 'haproxy.log'), 'a');
    this.haproxy = spawn('haproxy', ['-db', '-f', path], { stdio: ['ignore', log, log] });
    for (let i = 0; i < 100; i += 1) {
      const up = await fetch(`${this.baseUrl}/readyz`).catch(() => undefined);
      if (up?.status === 200) return;
      await sleep(100);
    }
    throw new Error('HAProxy did not answer');
  }

  get balancerPid(): number | undefined {
    return this.haproxy?.pid;
  }

  /** A command on HAProxy's admin socket. */
  async balancer(command: string): Promise<string> {
    return new Promise((done, fail) => {
      const socket = connect(join(this.dir, 'haproxy.sock'));
      let out = '';
      socket.on('data', (chunk) => (out += chunk.toString()));
      socket.on('end', () => done(out));
      socket.on('error', fail);
      socket.write(`${command}\n`);
    });
  }

  /** Per server: requests sent to it and its answers by class, from HAProxy's statistics. */
  async balancerStats(): Promise<Map<string, Record<string, number>>> {
    const csv = (await this.balancer('show stat')).trim().split('\n');
    const header = csv[0]!.replace(/^# /, '').split(',');
    const stats = new Map<string, Record<string, number>>();
    for (const line of csv.slice(1)) {
      const cells = line.split(',');
      const row = Object.fromEntries(header.map((name, i) => [name, cells[i] ?? '']));
      if (row.pxname !== 'nodes') continue;
      const pick = ['stot', 'hrsp_2xx', 'hrsp_4xx', 'hrsp_5xx', 'eresp', 'econ', 'wretr', 'wredis', 'chkdown'];
      stats.set(row.svname!, Object.fromEntries(pick.map((name) => [name, Number(row[name] || 0)])));
    }
    return stats;
  }

  /** SIGKILL to every process this run started, at once: for an exit that skipped `stop`. */
  killAllNow(): void {
    for (const proc of this.procs.values()) if (proc.child?.exitCode === null) proc.child.kill('SIGKILL');
    if (this.haproxy?.exitCode === null) this.haproxy.kill('SIGKILL');
  }

  /** Stops everything this run started; the database is dropped and the S3 server stopped. */
  async stop(): Promise<void> {
    for (const proc of this.procs.values()) {
      if (proc.child && proc.child.exitCode === null && proc.child.signalCode === null) {
        const exited = new Promise((done) => proc.child!.once('exit', done));
        proc.child.kill('SIGTERM');
        await Promise.race([exited, sleep(15_000)]);
      }
    }
    this.haproxy?.kill('SIGTERM');
    if (this.dbName) {
      const server = this.databaseUrl.slice(0, this.databaseUrl.lastIndexOf('/'));
      await adminQuery(server, `drop database if exists ${this.dbName} with (force)`).catch(() => undefined);
    }
    if (this.s3Dir) spawnSync(findS3Server()!, ['stop', this.s3Dir]);
  }
}
