#!/usr/bin/env node
// Runs a program under Node 24, preparing everything it needs first.
//
// A fresh machine may have an older system Node (this project's machines ship Node 20).
// Current kysely, better-sqlite3, vitest and file-type need Node >= 22, and npm checks
// `engines` against the Node it runs under, so the dependency install itself must run
// under Node 24 too. This script, written for any Node >= 18 and using nothing but
// node: built-ins, therefore:
//   1. uses the running Node when it is new enough, otherwise a pinned Node 24 LTS that it
//      fetches once from the npm registry (package node-<platform>-<arch>, which carries the
//      binary and the headers native addons build against) into .toolchain/ (git-ignored);
//   2. runs `npm ci` under that Node whenever package-lock.json changed since the last install;
//   3. runs the program given on its command line under that Node.
//
// Usage: node scripts/node24.mjs [--prepare-only] <script.ts|script.mjs> [args...]
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVER_NODE_FLAGS } from './server-flags.mjs';

const NODE_VERSION = '24.21.0';
const MIN_MAJOR = 24;

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const toolchainDir = join(root, '.toolchain');

function fail(message) {
  process.stderr.write(`waypost: ${message}\n`);
  process.exit(1);
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: 'inherit', cwd: root, ...options });
  if (result.error) fail(`could not run ${command}: ${result.error.message}`);
  return result.status ?? 1;
}

/** The npm CLI script of the npm that is running us, or the one on PATH. */
function npmCliPath() {
  const candidates = [];
  if (process.env.npm_execpath?.endsWith('.js')) candidates.push(process.env.npm_execpath);
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const npm = join(dir, 'npm');
    if (existsSync(npm)) candidates.push(join(dirname(realpathSync(npm)), 'npm-cli.js'));
  }
  candidates.push(join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js'));
  const found = candidates.find((path) => existsSync(path));
  if (!found) fail('npm was not found; install Node.js with npm first');
  return found;
}

/** Path of a Node >= 24 binary, fetching the pinned one when the running Node is older. */
function ensureNode() {
  const major = Number(process.versions.node.split('.')[0]);
  if (major >= MIN_MAJOR) return { node: process.execPath, headers: undefined };

  const home = join(toolchainDir, `node-${NODE_VERSION}`);
  const node = join(home, 'bin', 'node');
  if (existsSync(node)) return { node, headers: home };

  const pkg = `node-${process.platform}-${process.arch}@${NODE_VERSION}`;
  process.stderr.write(
    `waypost: Node ${process.versions.node} is older than ${MIN_MAJOR}; fetching ${pkg} into .toolchain/ (once)\n`,
  );
  const staging = join(toolchainDir, `staging-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  const packed = spawnSync(process.execPath, [npmCliPath(), 'pack', pkg, '--pack-destination', staging, '--silent'], {
    cwd: staging,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const tarball = packed.stdout?.trim().split('\n').pop();
  if (packed.status !== 0 || !tarball) fail(`could not fetch ${pkg}; install Node.js ${MIN_MAJOR} or newer yourself`);
  if (run('tar', ['-xzf', join(staging, tarball), '-C', staging]) !== 0) fail(`could not unpack ${tarball}`);
  // Move into place in one step, so an interrupted fetch never leaves a half toolchain.
  rmSync(home, { recursive: true, force: true });
  renameSync(join(staging, 'package'), home);
  rmSync(staging, { recursive: true, force: true });
  return { node, headers: home };
}

/** Runs `npm ci` under the given Node when the lockfile changed since the last install. */
function ensureDependencies({ node, headers }, env) {
  const lock = readFileSync(join(root, 'package-lock.json'));
  const stamp = createHash('sha256')
    .update(lock)
    .update(NODE_VERSION)
    .update(process.platform + process.arch)
    .digest('hex');
  const stampFile = join(root, 'node_modules', '.waypost-install');
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) return;

  process.stderr.write('waypost: installing dependencies (npm ci)\n');
  const installEnv = { ...env };
  // Native addons (better-sqlite3) compile against the headers of the Node that will load them.
  if (headers) installEnv.npm_config_nodedir = headers;
  if (run(node, [npmCliPath(), 'ci', '--no-audit', '--no-fund'], { env: installEnv }) !== 0) fail('npm ci failed');
  mkdirSync(dirname(stampFile), { recursive: true });
  writeFileSync(stampFile, stamp);
}

const args = process.argv.slice(2);
const prepareOnly = args[0] === '--prepare-only';
if (prepareOnly) args.shift();

const toolchain = ensureNode();
// Child processes (npm lifecycle scripts, node-gyp, test workers, `waypost` spawned by tests)
// find this Node first on PATH.
const env = { ...process.env, PATH: `${dirname(toolchain.node)}:${process.env.PATH ?? ''}` };
ensureDependencies(toolchain, env);
if (prepareOnly) process.exit(0);
if (args.length === 0) fail('usage: node scripts/node24.mjs [--prepare-only] <script> [args...]');

// The `waypost` command's processes run with the server's flags (scripts/server-flags.mjs).
const flags = /(^|\/)src\/cli\.ts$/.test(args[0]) ? SERVER_NODE_FLAGS : [];
const child = spawn(toolchain.node, [...flags, ...args], { stdio: 'inherit', cwd: process.cwd(), env });
// Pass stop signals on, so the program can shut down gracefully when this wrapper is signalled.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
child.on('error', (error) => fail(error.message));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
