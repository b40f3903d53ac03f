// `npm test`: the whole suite. The sign-in and consent pages are tested in a real browser,
// Debian's Chromium (docs/design.md), and video and audio with Debian's ffmpeg; a fresh machine has
// neither: install what is missing first when this process may (root with apt-get), so the
// README's command just works there. Elsewhere, say how to get it; CHROMIUM_PATH points the
// tests at another Chromium.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

function sh(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): boolean {
  return spawnSync(command, args, { stdio: 'inherit', env }).status === 0;
}

const onPath = (name: string) => (process.env.PATH ?? '').split(delimiter).some((dir) => existsSync(join(dir, name)));

/** A Debian package the tests need, why, and what to tell someone who must install it. */
interface Need {
  pkg: string;
  purpose: string;
  hint: string;
}

const needs: Need[] = [];
if (!existsSync(chromium)) {
  needs.push({
    pkg: 'chromium',
    purpose: 'the browser tests',
    hint: `Chromium at ${chromium}. Install it (Debian/Ubuntu: sudo apt-get install chromium) or set CHROMIUM_PATH to a Chromium binary`,
  });
}
if (!onPath('ffmpeg') || !onPath('ffprobe')) {
  needs.push({
    pkg: 'ffmpeg',
    purpose: 'the video and audio tests',
    hint: 'ffmpeg and ffprobe on PATH. Install them (Debian/Ubuntu: sudo apt-get install ffmpeg)',
  });
}

/** Installs every missing package with one `apt-get update`, or says how and stops. */
function install(missing: Need[]): void {
  if (missing.length === 0) return;
  const canInstall = process.getuid?.() === 0 && existsSync('/usr/bin/apt-get');
  if (!canInstall) {
    for (const need of missing) process.stderr.write(`waypost: ${need.purpose} need ${need.hint}.\n`);
    process.exit(1);
  }
  const packages = missing.map((need) => need.pkg);
  for (const need of missing) {
    process.stderr.write(`waypost: installing Debian's ${need.pkg} for ${need.purpose} (once)\n`);
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  if (!sh('apt-get', ['update'], env) || !sh('apt-get', ['install', '-y', ...packages], env)) {
    process.stderr.write(`waypost: could not install ${packages.join(', ')}\n`);
    process.exit(1);
  }
}

install(needs);

const result = spawnSync(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { ...process.env, CHROMIUM_PATH: chromium },
});
process.exit(result.status ?? 1);
