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
  const get = (app: TestApp, options: { from?: string; headers?: Record<string, string> } = {}) =>
    app.app.inject({
      method: 'GET',
      url: '/metrics',
      remoteAddress: options.from ?? '127.0.0.1',
      headers: options.headers,
    });
  const NOTHING_HERE = {
    type: 'urn:waypost:problem:not_found',
    title: 'Not Found',
    status: 404,
    detail: 'Nothing lives at GET /metrics.',
    code: 'not_found',
  };
  const TOKEN = { authorization: 'Bearer s3cret-metrics' };

  async function withApp(env: Record<string, string>, run: (app: TestApp) => Promise<void>) {
    const app = await buildTestApp({ env });
    try {
      await run(app);
    } finally {
      await app.close();
    }
  }

  function expectNothingHere(response: Awaited<ReturnType<typeof get>>) {
    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(response.headers['x-frame-options']).toBe('DENY');
    expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.json()).toEqual(NOTHING_HERE);
  }

  it('is off unless configured: 404 as for an unknown path, from anywhere, token or not, and not documented', async () => {
    for (const from of ['127.0.0.1', '::1', '203.0.113.5']) {
      expectNothingHere(await get(t, { from }));
      expectNothingHere(await get(t, { from, headers: TOKEN }));
    }
    const unknown = await t.app.inject({ method: 'GET', url: '/metricz' });
    expect(unknown.json()).toEqual({ ...NOTHING_HERE, detail: 'Nothing lives at GET /metricz.' });
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json<{ paths: object }>();
    expect(doc.paths).not.toHaveProperty('/metrics');
  });

  const RELAYED: Record<string, string>[] = [
    { 'x-forwarded-for': '203.0.113.5' },
    { forwarded: 'for=203.0.113.5' },
    { 'x-real-ip': '203.0.113.5' },
    { 'x-forwarded-for': '127.0.0.1' },
  ];
  const NO_TOKEN: Record<string, string>[] = [
    {},
    { authorization: 'Bearer wrong' },
    { authorization: 's3cret-metrics' },
  ];

  it('WAYPOST_METRICS_LOOPBACK: this machine only, never a request a proxy relayed', async () => {
    await withApp({ WAYPOST_METRICS_LOOPBACK: 'true' }, async (app) => {
      for (const from of ['127.0.0.1', '127.0.0.53', '::1', '::ffff:127.0.0.1']) {
        const response = await get(app, { from });
        expect(response.statusCode).toBe(200);
        expect(response.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
      }
      for (const from of ['203.0.113.5', '10.0.0.2', '::ffff:192.168.1.1', '2001:db8::1']) {
        expectNothingHere(await get(app, { from }));
        expectNothingHere(await get(app, { from, headers: TOKEN }));
      }
      for (const relayed of RELAYED) {
        expectNothingHere(await get(app, { headers: relayed }));
      }
    });
  });

  it('WAYPOST_METRICS_TOKEN: the token from anywhere, 401 without it, loopback no exception', async () => {
    await withApp({ WAYPOST_METRICS_TOKEN: 's3cret-metrics' }, async (app) => {
      for (const from of ['127.0.0.1', '203.0.113.5']) {
        expect((await get(app, { from, headers: TOKEN })).statusCode).toBe(200);
        for (const headers of NO_TOKEN) {
          const refused = await get(app, { from, headers });
          expect(refused.statusCode).toBe(401);
          expect(refused.headers['content-type']).toBe('application/problem+json; charset=utf-8');
          expect(refused.headers['www-authenticate']).toBe('Bearer realm="waypost-metrics"');
          expect(refused.json()).toEqual({
            type: 'urn:waypost:problem:unauthorized',
            title: 'Unauthorized',
            status: 401,
            detail: "The metrics need the operator's metrics token.",
            code: 'unauthorized',
          });
        }
      }
    });
  });

  it('both: the token from anywhere, or this machine without one', async () => {
    await withApp({ WAYPOST_METRICS_TOKEN: 's3cret-metrics', WAYPOST_METRICS_LOOPBACK: 'true' }, async (app) => {
      expect((await get(app, { from: '203.0.113.5', headers: TOKEN })).statusCode).toBe(200);
      expect((await get(app, { from: '203.0.113.5' })).statusCode).toBe(401);
      expect((await get(app, { from: '127.0.0.1', headers: { 'x-forwarded-for': '203.0.113.5' } })).statusCode).toBe(
        401,
      );
      expect((await get(app, { from: '127.0.0.1' })).statusCode).toBe(200);
      const doc = (await app.app.inject({ method: 'GET', url: '/openapi.json' })).json<{
        paths: Record<string, Record<string, { responses: object }>>;
      }>();
      expect(Object.keys(doc.paths['/metrics']?.get?.responses ?? {})).toEqual(['200', '401', '404']);
    });
  });

  it('counts requests and their latency by route pattern and status', async () => {
    await withApp({ WAYPOST_METRICS_LOOPBACK: 'true' }, async (app) => {
      await app.app.inject({ method: 'GET', url: '/users/nobody1' });
      await app.app.inject({ method: 'GET', url: '/users/nobody2' });
      const response = await get(app);
      expect(response.statusCode).toBe(200);
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
  });

  it('documents connecting a service, renewing its secret and the MCP endpoint with the statuses they answer', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json<{
      paths: Record<
        string,
        Record<
          string,
          {
            responses: Record<string, unknown>;
            requestBody?: { content: Record<string, { schema: { required?: string[] } }> };
            parameters?: { name: string; in: string }[];
          }
        >
      >;
    }>();
    const methods = (path: string) => Object.keys(doc.paths[path] ?? {});
    const statuses = (path: string, method: string) => Object.keys(doc.paths[path]?.[method]?.responses ?? {});

    expect(methods('/services/connect')).toEqual(['post']);
    expect(statuses('/services/connect', 'post')).toEqual(['200', '400', '401', '404', '422']);
    const connect = doc.paths['/services/connect']?.post?.requestBody?.content['application/json']?.schema;
    expect(connect?.required).toEqual(['type', 'config']);

    expect(methods('/services/{id}/secret')).toEqual(['post']);
    expect(statuses('/services/{id}/secret', 'post')).toEqual(['200', '400', '401', '404']);
    expect(doc.paths['/services/{id}/secret']?.post?.parameters?.map((p) => `${p.in} ${p.name}`)).toEqual(['path id']);
    expect(doc.paths['/services/{id}/secret']?.post?.requestBody).toBeUndefined();

    // GET and DELETE /mcp answer only 405, so the document lists POST alone.
    expect(methods('/mcp')).toEqual(['post']);
    expect(statuses('/mcp', 'post')).toEqual(['200', '202', '400', '401', '406', '415', '429']);
    expect(Object.keys(doc.paths['/mcp']?.post?.requestBody?.content ?? {})).toEqual(['application/json']);

    expect(methods('/.well-known/oauth-protected-resource/mcp')).toEqual(['get']);
    expect(statuses('/.well-known/oauth-protected-resource/mcp', 'get')).toEqual(['200']);
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
