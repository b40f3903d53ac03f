// The server as an operator runs it: a real process, its log, its shutdown.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { cliEnv } from '../test/cli.ts';
import { createTestDatabase, DIALECT, type TestDatabase } from '../test/helpers.ts';

const CLI = fileURLToPath(new URL('./cli.ts', import.meta.url));

interface Server {
  child: ChildProcessWithoutNullStreams;
  port: number;
  log: () => string;
  waitFor: (pattern: RegExp) => Promise<RegExpMatchArray>;
  exited: Promise<number | null>;
}

async function startServer(test: TestDatabase): Promise<Server> {
  const { DATABASE_URL: _ignored, ...parentEnv } = process.env;
  const child = spawn(process.execPath, [CLI, 'serve'], {
    env: { ...parentEnv, ...cliEnv(test), WAYPOST_PORT: '0', WAYPOST_LOG_LEVEL: 'info' },
  });
  let log = '';
  const waiters: { pattern: RegExp; resolve: (m: RegExpMatchArray) => void }[] = [];
  const check = () => {
    for (const waiter of [...waiters]) {
      const match = log.match(waiter.pattern);
      if (match) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(match);
      }
    }
  };
  child.stdout.on('data', (chunk: Buffer) => ((log += chunk.toString()), check()));
  child.stderr.on('data', (chunk: Buffer) => ((log += chunk.toString()), check()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const waitFor = (pattern: RegExp) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      waiters.push({ pattern, resolve });
      check();
      void exited.then(() => reject(new Error(`server exited before ${pattern}:\n${log}`)));
    });
  const [, port] = await waitFor(/Server listening at http:\/\/127\.0\.0\.1:(\d+)/);
  return { child, port: Number(port), log: () => log, waitFor, exited };
}

let test: TestDatabase | undefined;
let server: Server | undefined;
afterEach(async () => {
  if (server && server.child.exitCode === null) {
    server.child.kill('SIGKILL');
    await server.exited;
  }
  await test?.database.close();
  await test?.drop();
  test = undefined;
  server = undefined;
});

describe('waypost serve', () => {
  it('prints a one-time setup link on an empty database, and keeps secrets out of the log', async () => {
    test = await createTestDatabase();
    server = await startServer(test);
    const [, url, token] = await server.waitFor(
      /"setup_url":"(http:\/\/localhost:\d+\/setup\?token=([A-Za-z0-9_-]+))"/,
    );
    expect(url).toBeDefined();

    const base = `http://127.0.0.1:${server.port}`;
    const page = await fetch(`${base}/setup?token=${token}`);
    expect(page.status).toBe(200);
    // The form's CSRF token and the cookie it is bound to, posted as the page would post it.
    const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())![1]!;
    const cookie = page.headers
      .getSetCookie()
      .map((line) => line.split(';')[0])
      .join('; ');
    const created = await fetch(`${base}/setup`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, 'sec-fetch-site': 'same-origin' },
      body: new URLSearchParams({
        csrf,
        token: token!,
        username: 'operator',
        password: 'pa55word-never-logged',
        password_again: 'pa55word-never-logged',
      }),
    });
    expect(created.status).toBe(303);
    expect(created.headers.get('location')).toBe('/');
    await fetch(`${base}/healthz`, {
      headers: { authorization: 'Bearer bearer-never-logged', cookie: 'c=cookie-never-logged' },
    });
    await server.waitFor(/"url":"\/healthz"[^\n]*request completed/);

    const log = server.log();
    expect(log).not.toContain('pa55word-never-logged');
    expect(log).not.toContain('bearer-never-logged');
    expect(log).not.toContain('cookie-never-logged');
    // The token is printed once, in the setup message; the request log masks it.
    expect(log.split(token!).length - 1).toBe(2); // setup_url field and the message text
    expect(log).toContain('"url":"/setup?token=[redacted]"');
  });

  it('finishes a request in flight on SIGTERM, then exits cleanly', async () => {
    test = await createTestDatabase();
    server = await startServer(test);
    const body = 'username=late&password=x&password_again=x&token=';
    const response = new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: server!.port,
          method: 'POST',
          path: '/setup',
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': body.length + 5 },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.write(body); // the request is now in flight, its body unfinished
      void server!.waitFor(/shutting down/).then(() => setTimeout(() => req.end('wrong'), 200));
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    server.child.kill('SIGTERM');
    expect(await response).toBe(403); // answered, not cut off (the form had no CSRF token)
    expect(await server.exited).toBe(0);
    await expect(fetch(`http://127.0.0.1:${server.port}/healthz`)).rejects.toThrow();
  });

  it("makes the data folder 0700 and every file in it 0600 at start, with a warning; SQLite's -wal and -shm too", async () => {
    test = await createTestDatabase();
    const dir = test.dataDir;
    // A folder as an older version, a restore or a hand left it: readable by everyone.
    const loose = (path: string, content = 'x') => {
      mkdirSync(join(path, '..'), { recursive: true, mode: 0o755 });
      writeFileSync(path, content);
      chmodSync(path, 0o644);
    };
    loose(join(dir, 'imports', '01HZ0000000000000000000000.upload'));
    loose(join(dir, 'media', 'ab', 'abcdef.jpg'));
    for (const folder of [dir, join(dir, 'imports'), join(dir, 'media'), join(dir, 'media', 'ab')]) {
      chmodSync(folder, 0o755);
    }
    if (DIALECT === 'sqlite') chmodSync(join(dir, 'waypost.db'), 0o644);

    server = await startServer(test);
    await server.waitFor(/"setup_url"/); // written to the database: SQLite's -wal exists
    const modes: string[] = [];
    const walk = (path: string) => {
      const stat = statSync(path);
      modes.push(`${relative(dir, path) || '.'} ${(stat.mode & 0o777).toString(8)}`);
      if (stat.isDirectory()) for (const name of readdirSync(path).sort()) walk(join(path, name));
    };
    walk(dir);
    const sqlite = DIALECT === 'sqlite' ? ['waypost.db 600', 'waypost.db-shm 600', 'waypost.db-wal 600'] : [];
    expect(modes).toEqual([
      '. 700',
      'imports 700',
      'imports/01HZ0000000000000000000000.upload 600',
      'media 700',
      'media/ab 700',
      'media/ab/abcdef.jpg 600',
      'media/tmp 700', // made by the server
      ...sqlite,
    ]);
    const fixed = 6 + (DIALECT === 'sqlite' ? 1 : 0);
    expect(server.log()).toContain(`"count":${fixed}`);
    expect(server.log()).toContain('in the data folder were readable by others; made 0600 (files) and 0700 (folders)');
  });
});
