// Strict-Transport-Security (RFC 6797) on every answer when the base URL is https, none when it
// is http: API answers, pages, problems, router failures, replayed public pages, the
// authorization server's answers, and what Node's parser refuses, on a real socket.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestUser, type TestApp } from '../../test/helpers.ts';
import { listeningTestApp } from '../../test/server.ts';

const HSTS = 'max-age=31536000';

/** The raw answer to bytes written on a new connection. */
function rawAnswer(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => resolve(answer));
  });
}

const PATHS = [
  '/healthz',
  '/', // a page
  '/users/hsts', // an API object
  '/posts/public/hsts', // a public page, twice: the second is replayed from memory
  '/posts/public/hsts',
  '/.well-known/oauth-authorization-server', // the authorization server
  '/nothing/here', // 404 problem
  '/posts/public/hsts?count=0', // 400 problem
  '/%E0%A4%A', // a path that does not decode (router failure)
];

for (const [scheme, expected] of [
  ['https', HSTS],
  ['http', undefined],
] as const) {
  describe(`base URL on ${scheme}`, () => {
    let t: TestApp & { baseUrl: string };
    beforeAll(async () => {
      t = await listeningTestApp(scheme === 'https' ? { env: { WAYPOST_BASE_URL: 'https://waypost.test' } } : {});
      await createTestUser(t.database, { username: 'hsts' });
    });
    afterAll(() => t.close());
    // The app listens on plain http behind the TLS-terminating proxy the base URL names.
    const port = () => Number(new URL(t.baseUrl).port);

    it(`every answer ${expected ? 'carries' : 'has no'} Strict-Transport-Security`, async () => {
      const seen = [];
      for (const path of PATHS) {
        const response = await fetch(`http://127.0.0.1:${port()}${path}`);
        seen.push([path, response.status, response.headers.get('strict-transport-security') ?? undefined]);
      }
      expect(seen).toEqual([
        ['/healthz', 200, expected],
        ['/', 200, expected],
        ['/users/hsts', 200, expected],
        ['/posts/public/hsts', 200, expected],
        ['/posts/public/hsts', 200, expected],
        ['/.well-known/oauth-authorization-server', 200, expected],
        ['/nothing/here', 404, expected],
        ['/posts/public/hsts?count=0', 400, expected],
        ['/%E0%A4%A', 400, expected],
      ]);
      const refused = await rawAnswer(port(), 'NOT HTTP\r\n\r\n');
      expect(refused.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
      expect(refused.toLowerCase().includes(`strict-transport-security: ${HSTS}\r\n`)).toBe(expected !== undefined);
    });
  });
}
