// `npm run fuzz -- [requests]`: fuzzes every route (test/route-fuzz.ts) on a fresh database (SQLite,
// or PostgreSQL when TEST_DATABASE_URL is set) and prints how many requests each status got and
// every request that broke the rule. Exits non-zero when one did.
import fc from 'fast-check';
import { buildTestApp } from '../test/helpers.ts';
import { makeWorld, problemIn, requests, routesOf } from '../test/route-fuzz.ts';

const total = Number(process.argv[2] ?? 100_000);
const t = await buildTestApp();
try {
  const routes = routesOf(t.app);
  const world = await makeWorld(t);
  const statuses = new Map<number, number>();
  const broken: string[] = [];
  const started = performance.now();
  for (const request of fc.sample(requests(routes, world), total)) {
    let response;
    try {
      response = await t.app.inject(request);
    } catch (error) {
      // A request no HTTP client could send (light-my-request refuses it before the server sees it).
      broken.push(
        `not sendable: ${request.method} ${request.url} ${JSON.stringify(request.headers)}: ${String(error)}`,
      );
      continue;
    }
    statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
    const problem = problemIn(response);
    if (problem) broken.push(`${problem}: ${request.method} ${request.url} -> ${response.body.slice(0, 200)}`);
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(`${total} requests over ${routes.length} routes in ${seconds.toFixed(1)} s`);
  console.log(
    [...statuses]
      .sort(([a], [b]) => a - b)
      .map(([status, n]) => `${status}: ${n}`)
      .join(', '),
  );
  console.log(`${broken.length} broke the rule`);
  for (const line of broken.slice(0, 50)) console.log(line);
  process.exitCode = broken.length === 0 ? 0 : 1;
} finally {
  await t.close();
}
