// The Waypost side of bench/posts-delivery.ts, in its own process as `waypost serve` runs it:
// API and delivery worker together, SQLite in a temporary folder (PostgreSQL with DATABASE_URL).
// Sets up one user, three webhook services at the receivers given as arguments, one group
// holding them, and a token; prints {port, token, group} as one JSON line when listening.
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { createJobRunner, type JobRunner } from '../src/job-runner.ts';
import { openConfiguredDatabase } from '../src/main.ts';
import { createUser } from '../src/users/users.logic.ts';
import { tokenFor } from '../test/tokens.ts';

const receivers = process.argv.slice(2);
const config = loadConfig();
const database = openConfiguredDatabase(config);
await migrateToLatest(database);
let jobs: JobRunner | undefined = undefined;
const app = await buildApp({ config, database, onJobsQueued: () => jobs?.worker.wake() });
jobs = createJobRunner({ config, database });
const user = await createUser(
  database.db,
  { username: 'bench', password: 'bench password 1' },
  { log2N: 10, r: 8, p: 1 },
);
const harness = { app, database, config, close: async () => {}, drop: async () => {} };
const manage = await tokenFor(harness, user, ['create_service', 'manage_groups']);
const token = await tokenFor(harness, user, ['create_post']);
const secret = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
const serviceIds: string[] = [];
for (const [index, url] of receivers.entries()) {
  const response = await app.inject({
    method: 'POST',
    url: '/services',
    headers: { authorization: `Bearer ${manage}` },
    payload: { type: 'webhook', name: `receiver ${index}`, config: { url, secret } },
  });
  serviceIds.push(response.json<{ id: string }>().id);
}
const group = await app.inject({
  method: 'POST',
  url: '/services/groups',
  headers: { authorization: `Bearer ${manage}` },
  payload: { name: 'bench', service_ids: serviceIds },
});
await app.listen({ host: '127.0.0.1', port: 0 });
jobs.worker.start();
const address = app.server.address();
const port = typeof address === 'object' && address ? address.port : 0;
process.stdout.write(`${JSON.stringify({ port, token, group: group.json<{ id: string }>().id, secret })}\n`);
process.on('SIGTERM', () => {
  void (async () => {
    await app.close();
    await jobs.close();
    await database.close();
    process.exit(0);
  })();
});
