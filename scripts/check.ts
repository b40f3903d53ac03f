// `npm run check`: type-check, lint, format check and no folders that import each other; any
// warning fails.
import { spawnSync } from 'node:child_process';

const steps: [string, string[]][] = [
  ['type-check', ['node_modules/typescript/bin/tsc', '--noEmit', '-p', 'tsconfig.json']],
  ['lint', ['node_modules/eslint/bin/eslint.js', '--max-warnings', '0', '.']],
  ['format', ['node_modules/prettier/bin/prettier.cjs', '--check', '--log-level', 'warn', '.']],
  ['folder-cycles', ['scripts/folder-cycles.ts']],
];

let failed = false;
for (const [name, args] of steps) {
  const result = spawnSync(process.execPath, args, { stdio: 'inherit' });
  process.stdout.write(`${result.status === 0 ? 'ok  ' : 'FAIL'} ${name}\n`);
  failed ||= result.status !== 0;
}
process.exit(failed ? 1 : 0);
