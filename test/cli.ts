// Runs the real `waypost` command in a child process, as an operator would.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { TEST_SECRET_KEY, type TestDatabase } from './helpers.ts';

const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment that points the CLI at a test database. */
export function cliEnv(test: Pick<TestDatabase, 'dataDir' | 'databaseUrl'>): Record<string, string> {
  const env: Record<string, string> = { WAYPOST_DATA_DIR: test.dataDir, WAYPOST_SECRET_KEY: TEST_SECRET_KEY };
  if (test.databaseUrl) env.DATABASE_URL = test.databaseUrl;
  return env;
}

export function runCli(
  args: string[],
  { env = {}, stdin = '' }: { env?: Record<string, string>; stdin?: string } = {},
) {
  return new Promise<CliResult>((resolve, reject) => {
    const { DATABASE_URL: _ignored, ...parentEnv } = process.env;
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...parentEnv, WAYPOST_LOG_LEVEL: 'silent', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}
