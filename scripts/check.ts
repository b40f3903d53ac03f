// `npm run check`: type-check (the server, then the browser's scripts), lint, format check and
// no imports that run in a circle (folders or files), no link from code to a docs section that
// does not exist; any warning fails.
import { spawnSync } from 'node:child_process';

const steps: [string, string[]][] = [
  ['type-check', ['node_modules/typescript/bin/tsc', '--noEmit', '-p', 'tsconfig.json']],
  ['browser-types', ['node_modules/typescript/bin/tsc', '--noEmit', '-p', 'tsconfig.browser.json']],
  ['lint', ['node_modules/eslint/bin/eslint.js', '--max-warnings', '0', '.']],
  ['format', ['node_modules/prettier/bin/prettier.cjs', '--check', '--log-level', 'warn', '.']],
  ['import-cycles', ['scripts/import-cycles.ts']],
  ['doc-links', ['scripts/doc-links.ts']],
];

let failed = false;
for (const [name, args] of steps) {
  const result = spawnSync(process.execPath, args, { stdio: 'inherit' });
  process.stdout.write(`${result.status === 0 ? 'ok  ' : 'FAIL'} ${name}\n`);
  failed ||= result.status !== 0;
}
process.exit(failed ? 1 : 0);
