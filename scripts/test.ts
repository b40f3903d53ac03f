// `npm test`: the whole suite. The sign-in and consent pages are tested in a real browser,
// Debian's Chromium (DESIGN.md), which a fresh machine does not have: install it first when
// missing and this process may (root with apt-get), so the README's command just works there.
// Elsewhere, say how to get it; CHROMIUM_PATH points the tests at another Chromium.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

function sh(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): boolean {
  return spawnSync(command, args, { stdio: 'inherit', env }).status === 0;
}

if (!existsSync(chromium)) {
  const canInstall = process.getuid?.() === 0 && existsSync('/usr/bin/apt-get');
  if (!canInstall) {
    process.stderr.write(
      `waypost: the browser tests need Chromium at ${chromium}. Install it (Debian/Ubuntu: ` +
        `sudo apt-get install chromium) or set CHROMIUM_PATH to a Chromium binary.\n`,
    );
    process.exit(1);
  }
  process.stderr.write("waypost: installing Debian's chromium for the browser tests (once)\n");
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  if (!sh('apt-get', ['update'], env) || !sh('apt-get', ['install', '-y', 'chromium'], env)) {
    process.stderr.write('waypost: could not install chromium\n');
    process.exit(1);
  }
}

const result = spawnSync(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { ...process.env, CHROMIUM_PATH: chromium },
});
process.exit(result.status ?? 1);
