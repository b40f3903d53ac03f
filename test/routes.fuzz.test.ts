// Every route, fuzzed: whatever a client sends, by whatever method and with whatever credentials,
// the answer is below 500 and carries no stack trace or server path (test/route-fuzz.ts).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from './helpers.ts';
import { makeWorld, problemIn, requests, routesOf, type Route, type World } from './route-fuzz.ts';

let t: TestApp;
let routes: Route[];
let world: World;
beforeAll(async () => {
  t = await buildTestApp();
  routes = routesOf(t.app);
  world = await makeWorld(t);
});
afterAll(() => t.close());

describe('every route under fuzzing', () => {
  it('reads the route table: every feature is there', () => {
    const paths = new Set(routes.map((route) => `${route.method} ${route.path}`));
    for (const expected of [
      'POST /posts',
      'GET /posts/id/:id',
      'DELETE /media/id/:id',
      'POST /imports',
      'GET /export',
    ]) {
      expect(paths.has(expected), expected).toBe(true);
    }
  });

  it('answers every request below 500, with no trace or server path', async () => {
    await fc.assert(
      fc.asyncProperty(requests(routes, world), async (request) => {
        const response = await t.app.inject(request);
        expect(problemIn(response), `${request.method} ${request.url} -> ${response.body.slice(0, 300)}`).toBe(
          undefined,
        );
      }),
      { numRuns: 3000 },
    );
  });
});
