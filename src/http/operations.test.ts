import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../test/helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

describe('health', () => {
  it('GET /healthz answers while the process is up', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok' });
  });

  it('GET /readyz answers 200 with the database, 503 without', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/readyz' })).json()).toEqual({ status: 'ok' });
    const other = await buildTestApp();
    await other.database.close();
    const response = await other.app.inject({ method: 'GET', url: '/readyz' });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toMatchObject({ code: 'not_ready', status: 503 });
    await other.app.close();
    await other.drop();
  });
});

describe('GET /metrics', () => {
  it('counts requests and their latency by route pattern and status', async () => {
    await t.app.inject({ method: 'GET', url: '/users/nobody1' });
    await t.app.inject({ method: 'GET', url: '/users/nobody2' });
    const response = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('text/plain');
    const text = response.body;
    expect(text).toContain('http_requests_total{method="GET",route="/users/:username",status_code="404"} 2');
    expect(text).toMatch(
      /http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/users\/:username",status_code="404"\} \d/,
    );
    expect(text).toContain(
      'http_request_duration_seconds_count{method="GET",route="/users/:username",status_code="404"} 2',
    );
    expect(text).toContain('process_resident_memory_bytes');
    expect(text).not.toContain('nobody1');
  });

  it('needs the metrics token when the operator sets one', async () => {
    const guarded = await buildTestApp({ env: { WAYPOST_METRICS_TOKEN: 's3cret-metrics' } });
    try {
      const refused = await guarded.app.inject({ method: 'GET', url: '/metrics' });
      expect(refused.statusCode).toBe(401);
      expect(refused.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      const allowed = await guarded.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: 'Bearer s3cret-metrics' },
      });
      expect(allowed.statusCode).toBe(200);
    } finally {
      await guarded.close();
    }
  });
});

describe('OpenAPI', () => {
  it('documents every route with its responses, components by name', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(response.statusCode).toBe(200);
    const doc = response.json<{
      openapi: string;
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
      components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
    }>();
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['Problem', 'UserProfile']));
    expect(Object.keys(doc.components.schemas).some((name) => name.startsWith('def-'))).toBe(false);
    expect(Object.keys(doc.paths['/users/{username}']?.get?.responses ?? {})).toEqual(['200', '400', '404']);
    expect(Object.keys(doc.paths['/readyz']?.get?.responses ?? {})).toEqual(['200', '503']);
    expect(doc.paths['/healthz']?.get).toBeDefined();
    expect(doc.paths['/metrics']?.get).toBeDefined();
  });

  it('every operation declares a success response, 401 when it takes a token, 400 when its parameters have rules', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json<{
      paths: Record<
        string,
        Record<
          string,
          {
            responses?: Record<string, unknown>;
            security?: object[];
            parameters?: { name: string; schema?: Record<string, unknown> }[];
          }
        >
      >;
    }>();
    const missing: string[] = [];
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const statuses = Object.keys(operation.responses ?? {});
        if (!statuses.some((status) => status.startsWith('2'))) missing.push(`${method} ${path}: no 2xx`);
        if (operation.security && !statuses.includes('401')) missing.push(`${method} ${path}: no 401`);
        const ruled = (operation.parameters ?? []).filter((p) =>
          Object.keys(p.schema ?? {}).some((key) => key !== 'type' && key !== 'description'),
        );
        if (ruled.length > 0 && !statuses.includes('400')) missing.push(`${method} ${path}: no 400`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('the docs page loads nothing from another origin', async () => {
    const index = await t.app.inject({ method: 'GET', url: '/docs' });
    expect(index.statusCode).toBe(200);
    const initializer = await t.app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
    expect(initializer.statusCode).toBe(200);
    for (const text of [index.body, initializer.body]) {
      expect(text).not.toMatch(/(src|href)=["']?(https?:)?\/\//);
      expect(text).not.toMatch(/url:\s*["']https?:/);
    }
  });
});
