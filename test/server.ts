// A test app listening on a real port on 127.0.0.1, its issuer/base URL set to that address:
// for clients that speak HTTP themselves (oauth4webapi, Chromium).
import { createServer } from 'node:net';
import { buildTestApp, type TestApp, type TestAppOptions } from './helpers.ts';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export async function listeningTestApp(options: TestAppOptions = {}): Promise<TestApp & { baseUrl: string }> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const t = await buildTestApp({ ...options, env: { WAYPOST_BASE_URL: baseUrl, ...options.env } });
  await t.app.listen({ host: '127.0.0.1', port });
  return { ...t, baseUrl };
}
