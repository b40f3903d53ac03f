// The container image's own pieces (docs/container.md): what the Containerfile pins and copies,
// the image's `waypost` command, and its health check against a real server.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SERVER_NODE_FLAGS } from '../scripts/server-flags.mjs';
import { listeningTestApp } from './server.ts';
import type { TestApp } from './helpers.ts';

const ROOT = resolve(import.meta.dirname, '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

describe('the Containerfile', () => {
  it('pins the Node that scripts/node24.mjs fetches for a clone', () => {
    const clone = /const NODE_VERSION = '([^']+)'/.exec(read('scripts/node24.mjs'))?.[1];
    const image = /^ARG NODE_VERSION=(\S+)$/m.exec(read('Containerfile'))?.[1];
    expect(clone).toMatch(/^24\./);
    expect(image).toBe(clone);
  });

  it('copies from the build context only what .dockerignore lets in, and no test', () => {
    const sources = [...read('Containerfile').matchAll(/^COPY (?!--from)(.+)$/gm)].flatMap(([, args]) =>
      args!.trim().split(/\s+/).slice(0, -1),
    );
    const ignore = read('.dockerignore')
      .split('\n')
      .filter((line) => line && !line.startsWith('#'));
    const allowed = ignore.filter((line) => line.startsWith('!')).map((line) => line.slice(1));
    expect(ignore[0]).toBe('*');
    expect(ignore).toContain('**/*.test.ts');
    expect(sources).toEqual([
      'package.json',
      'package-lock.json',
      '.npmrc',
      'scripts/server-flags.mjs',
      'scripts/container-command.mjs',
      'scripts/healthcheck.mjs',
      'src',
    ]);
    for (const source of sources) {
      expect(allowed.some((entry) => entry === source || entry === `${source}/`)).toBe(true);
    }
  });
});

describe("the image's waypost command", () => {
  it('runs src/cli.ts under exec with the server flags', () => {
    const result = spawnSync(process.execPath, [join(ROOT, 'scripts/container-command.mjs'), '/app'], {
      encoding: 'utf8',
    });
    expect(result.status).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toBe('#!/bin/sh');
    expect(lines.at(-2)).toBe(`exec node ${SERVER_NODE_FLAGS.join(' ')} /app/src/cli.ts "$@"`);
    expect(lines.at(-1)).toBe('');
  });
});

describe("the image's health check", () => {
  let t: (TestApp & { baseUrl: string }) | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  function healthcheck(port: string): Promise<{ code: number | null; stderr: string }> {
    return new Promise((done) => {
      const child = spawn(process.execPath, [join(ROOT, 'scripts/healthcheck.mjs')], {
        // Listening on every address: the check asks loopback.
        env: { PATH: process.env.PATH ?? '', WAYPOST_HOST: '0.0.0.0', WAYPOST_PORT: port },
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('close', (code) => done({ code, stderr }));
    });
  }

  it('passes while /readyz answers 200', async () => {
    t = await listeningTestApp();
    expect(await healthcheck(new URL(t.baseUrl).port)).toEqual({ code: 0, stderr: '' });
  });

  it('fails when the database does not answer (503)', async () => {
    const app = await listeningTestApp();
    await app.database.close();
    const result = await healthcheck(new URL(app.baseUrl).port);
    await app.app.close();
    await app.drop();
    expect(result).toEqual({ code: 1, stderr: '/readyz answered 503\n' });
  });

  it('fails when nothing listens', async () => {
    t = await listeningTestApp();
    const port = new URL(t.baseUrl).port;
    await t.app.close();
    const result = await healthcheck(port);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^\/readyz did not answer: /);
  });
});
