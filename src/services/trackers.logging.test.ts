// An ingest token in a URL (the only way some apps can send one) never reaches a log line,
// whether the request succeeds or is refused; nor does one sent in a header.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildTestApp, createTestUser, type TestApp } from '../../test/helpers.ts';
import { tokenFor } from '../../test/tokens.ts';
import { createLogger } from '../logger.ts';

const lines: string[] = [];
let t: TestApp;

beforeAll(async () => {
  // The production logger (its redaction and serializers), writing into memory, at the most
  // talkative level, so that whatever fastify or Waypost log about a request is seen.
  const stream = new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) });
  t = await buildTestApp({ logger: createLogger({ logLevel: 'trace', logFormat: 'json' }, stream) });
});
afterAll(() => t.close());

it('no ingest token reaches the logs', async () => {
  const { app } = t;
  const person = await createTestUser(t.database);
  const token = await tokenFor(t, person, ['create_service']);
  const created = await app.inject({
    method: 'POST',
    url: '/services',
    headers: { authorization: `Bearer ${token}` },
    payload: { type: 'gpslogger', name: 'phone', config: {} },
  });
  const { id, ingest } = created.json<{ id: string; ingest: { url: string; token: string } }>();
  const secret = ingest.token;

  // No Content-Type at all: GPSLogger sends none unless the person adds the header.
  const stored = await app.inject({
    method: 'POST',
    url: `/ingest/${id}?token=${secret}&lat=52.52&lon=13.40&time=2025-01-16T03:54:51Z`,
  });
  expect(stored.json()).toEqual({ stored: 1, duplicates: 0 });
  const form = await app.inject({
    method: 'POST',
    url: `/ingest/${id}?token=${encodeURIComponent(secret)}`,
    payload: 'lat=52.53&lon=13.41&timestamp=1736999700',
  });
  expect(form.json()).toEqual({ stored: 1, duplicates: 0 });
  const refused = await app.inject({ method: 'POST', url: `/ingest/${id}?lat=1&token=${secret}WRONG` });
  expect(refused.statusCode).toBe(401);
  const invalid = await app.inject({ method: 'POST', url: `/ingest/${id}?token=${secret}`, payload: 'lat=x' });
  expect(invalid.statusCode).toBe(400);
  const header = await app.inject({
    method: 'POST',
    url: `/ingest/${id}`,
    headers: { authorization: `Basic ${Buffer.from(`me:${secret}`).toString('base64')}` },
    payload: 'lat=52.54&lon=13.42&timestamp=1736999800',
  });
  expect(header.statusCode).toBe(200);

  const log = lines.join('');
  expect(log).toContain(`/ingest/${id}?token=[redacted]`);
  expect(log).toContain(`/ingest/${id}?lat=1&token=[redacted]`);
  expect(log).not.toContain(secret);
  expect(log).not.toContain(encodeURIComponent(secret));
  expect(log).not.toContain(Buffer.from(`me:${secret}`).toString('base64'));
});
