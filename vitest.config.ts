import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Each test file builds its own app on its own database; two cores, so two forks.
    pool: 'forks',
    // With TEST_S3_ENDPOINT set, files go to that S3 server's test bucket (test/s3.ts).
    globalSetup: ['test/s3.ts'],
    maxWorkers: 2,
    // Guards against hangs, not speed checks: CLI tests spawn processes that hash with scrypt.
    testTimeout: 60_000,
    hookTimeout: 30_000,
    // expect.poll waits for a page or a worker to catch up; 1 s (the default) is shorter than
    // Chromium's first paint on two loaded cores, so a slow machine failed a true assertion.
    expect: { poll: { timeout: 15_000 } },
  },
});
