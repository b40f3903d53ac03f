// Prints one closing line for vitest JSON reports: "N passed, N failed" (and skipped), per
// report and in total. Exits non-zero if any test failed or none ran.
import { readFileSync } from 'node:fs';

interface Report {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
}

let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of process.argv.slice(2)) {
  const report = JSON.parse(readFileSync(file, 'utf8')) as Report;
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  skipped += report.numPendingTests + report.numTodoTests;
  process.stdout.write(`${file}: ${report.numPassedTests} passed, ${report.numFailedTests} failed\n`);
}
process.stdout.write(`${passed} passed, ${failed} failed, ${skipped} skipped\n`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
