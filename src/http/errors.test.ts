import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../test/helpers.ts';
import { AppError } from '../core/errors.ts';
import { strictBody } from './strict-body.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({
    env: { WAYPOST_BODY_LIMIT: '2048' },
    extend: (app) => {
      const typed = app.withTypeProvider<TypeBoxTypeProvider>();
      typed.post(
        '/test/things',
        {
          schema: {
            body: Type.Object(
              { name: Type.String({ minLength: 1 }), count: Type.Integer({ minimum: 0 }) },
              { additionalProperties: false },
            ),
          },
        },
        async (request) => ({ name: request.body.name }),
      );
      typed.post(
        '/test/strict',
        {
          schema: {
            body: Type.Object(
              { name: Type.String({ minLength: 1 }), count: Type.Integer({ minimum: 0 }) },
              { additionalProperties: false },
            ),
          },
          validatorCompiler: strictBody,
        },
        async (request) => ({ name: request.body.name }),
      );
      typed.get('/test/conflict', async () => {
        throw new AppError('username_taken', 'It is already there.');
      });
      typed.get('/test/crash', async () => {
        throw new Error('secret internals at /srv/waypost/src/db.ts: SELECT * FROM users');
      });
    },
  });
});
afterAll(() => t.close());

const post = (payload: string, contentType = 'application/json') =>
  t.app.inject({ method: 'POST', url: '/test/things', payload, headers: { 'content-type': contentType } });

function expectProblem(response: Awaited<ReturnType<typeof post>>, status: number, code: string) {
  expect(response.statusCode).toBe(status);
  expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
  const body = response.json<Record<string, unknown>>();
  expect(body).toMatchObject({ type: `urn:waypost:problem:${code}`, status, code });
  expect(typeof body.title).toBe('string');
  expect(typeof body.detail).toBe('string');
  return body;
}

describe('errors are problem+json', () => {
  it('400 with field-level errors for a body that fails its schema', async () => {
    const body = expectProblem(await post(JSON.stringify({ name: '', extra: 1 })), 400, 'validation_failed');
    expect(body.errors).toEqual(
      expect.arrayContaining([
        { path: 'body/name', message: 'must NOT have fewer than 1 characters' },
        { path: 'body/extra', message: 'is not a known field' },
        { path: 'body/count', message: 'is required' },
      ]),
    );
  });

  it('400 with the same field errors from the strict (non-coercing) body validator', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/test/strict',
      payload: { name: '', count: '1', extra: 1, other: 2 },
    });
    const body = expectProblem(response, 400, 'validation_failed');
    const byPath = (a: { path: string }, b: { path: string }) => a.path.localeCompare(b.path);
    expect((body.errors as { path: string }[]).sort(byPath)).toEqual([
      { path: 'body/count', message: 'must be integer' },
      { path: 'body/extra', message: 'is not a known field' },
      { path: 'body/name', message: 'must not have fewer than 1 characters' },
      { path: 'body/other', message: 'is not a known field' },
    ]);
    const missing = await t.app.inject({ method: 'POST', url: '/test/strict', payload: {} });
    expect(expectProblem(missing, 400, 'validation_failed').errors).toEqual([
      { path: 'body/name', message: 'is required' },
      { path: 'body/count', message: 'is required' },
    ]);
  });

  it('400 for a body that is not JSON, or empty', async () => {
    expectProblem(await post('{"name":'), 400, 'invalid_json');
    expectProblem(await post(''), 400, 'invalid_json');
  });

  it('413 for a body over the limit', async () => {
    expectProblem(await post(JSON.stringify({ name: 'x'.repeat(4096), count: 1 })), 413, 'payload_too_large');
  });

  it('415 for a media type the route does not take', async () => {
    expectProblem(await post('name=x', 'application/x-www-form-urlencoded'), 415, 'unsupported_media_type');
  });

  it('404 for an unknown route', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/no/such/thing?x=1' });
    expect(expectProblem(response, 404, 'not_found').detail).toBe('Nothing lives at GET /no/such/thing.');
  });

  it('405 with Allow for a known path and another method', async () => {
    const response = await t.app.inject({ method: 'PUT', url: '/test/things' });
    expectProblem(response, 405, 'method_not_allowed');
    expect(response.headers.allow).toBe('POST');
    const users = await t.app.inject({ method: 'DELETE', url: '/users/anyone' });
    expectProblem(users, 405, 'method_not_allowed');
    expect(users.headers.allow).toBe('GET, HEAD');
  });

  it('a typed error keeps its status and code', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/test/conflict' });
    expect(expectProblem(response, 409, 'username_taken').detail).toBe('It is already there.');
  });

  it('500 says nothing of the internals', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/test/crash' });
    expectProblem(response, 500, 'internal_error');
    expect(response.body).not.toMatch(/secret|SELECT|\/srv|stack|at /);
  });
});

describe('request ids', () => {
  it('echoes a sane X-Request-Id and replaces an insane one', async () => {
    const sane = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'abc-123.XYZ' } });
    expect(sane.headers['x-request-id']).toBe('abc-123.XYZ');
    const insane = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': '<script>' } });
    expect(insane.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const none = await t.app.inject({ method: 'GET', url: '/nowhere' });
    expect(none.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('security headers', () => {
  it('are on every response', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(response.headers).toMatchObject({
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
    });
    expect(response.headers['content-security-policy']).toContain("frame-ancestors 'none'");
  });
});
