// The outbound guard against real sockets on loopback: literal addresses, names that resolve to
// private addresses, and redirects to either.
import type dns from 'node:dns';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressCategory } from '../config.ts';
import { assertAddressAllowed, classifyAddress, createOutbound, OutboundBlockedError } from './ssrf.ts';

describe('classifyAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['0.0.0.0', 'loopback'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.1.1', 'link-local'],
    ['169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['100.64.0.1', 'cgnat'],
    ['fe80::1', 'link-local'],
    ['fc00::1', 'unique-local'],
    ['fdff:ffff::1', 'unique-local'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['224.0.0.1', 'reserved'],
    ['2002:7f00:1::', 'reserved'],
    ['8.8.8.8', 'public'],
    ['172.32.0.1', 'public'],
    ['2606:4700::1111', 'public'],
    ['::ffff:8.8.8.8', 'public'],
  ])('%s is %s', (address, category) => {
    expect(classifyAddress(address)).toBe(category);
  });

  it('lets the operator allow a kind, but allowing link-local does not allow the metadata address', () => {
    expect(() => assertAddressAllowed('10.0.0.1', new Set())).toThrow(OutboundBlockedError);
    expect(() => assertAddressAllowed('10.0.0.1', new Set(['private']))).not.toThrow();
    expect(() => assertAddressAllowed('169.254.169.254', new Set(['link-local']))).toThrow(/metadata/);
  });
});

let server: Server;
let port: number;
beforeAll(async () => {
  server = createServer((request, response) => {
    const redirect = new URL(request.url ?? '/', 'http://x').searchParams.get('to');
    if (redirect) response.writeHead(302, { location: redirect }).end();
    else response.writeHead(200, { 'content-type': 'text/plain' }).end(`${request.method} ok`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

// A resolver that knows a few test names and nothing else (tests make no real DNS queries).
const fakeDns = ((hostname: string, options: dns.LookupAllOptions, callback: (...args: unknown[]) => void) => {
  const table: Record<string, dns.LookupAddress[]> = {
    'internal.test': [{ address: '10.0.0.5', family: 4 }],
    'mixed.test': [
      { address: '192.168.0.7', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ],
    'loopback.test': [{ address: '127.0.0.1', family: 4 }],
  };
  const found = table[hostname];
  if (!found) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }));
  if (options.all) return callback(null, found);
  return callback(null, found[0]?.address, found[0]?.family);
}) as unknown as typeof dns.lookup;

async function attempt(url: string, allow: AddressCategory[]): Promise<string> {
  const outbound = createOutbound({ allow: new Set(allow), lookup: fakeDns, timeoutMs: 2000 });
  try {
    const response = await outbound.request(url, { method: 'POST', body: 'x' });
    return `${response.status} ${await response.text()}`;
  } catch (error) {
    return error instanceof OutboundBlockedError ? 'blocked' : `error ${(error as Error).message}`;
  } finally {
    await outbound.close();
  }
}

describe('outbound requests', () => {
  it('refuse loopback unless the operator allows it', async () => {
    expect(await attempt(`http://127.0.0.1:${port}/`, [])).toBe('blocked');
    expect(await attempt(`http://[::1]:${port}/`, [])).toBe('blocked');
    expect(await attempt(`http://[::ffff:127.0.0.1]:${port}/`, [])).toBe('blocked');
    expect(await attempt(`http://loopback.test:${port}/`, [])).toBe('blocked');
    expect(await attempt(`http://127.0.0.1:${port}/`, ['loopback'])).toBe('200 POST ok');
    expect(await attempt(`http://loopback.test:${port}/`, ['loopback'])).toBe('200 POST ok');
  });

  it('refuse a private, link-local or metadata literal even with loopback allowed', async () => {
    for (const host of ['10.1.2.3', '172.16.5.5', '192.168.1.1', '169.254.169.254', '[fc00::1]', '[fe80::1]']) {
      expect(await attempt(`http://${host}:${port}/`, ['loopback'])).toBe('blocked');
    }
  });

  it('refuse a hostname that resolves to a private address (the check is at connect time)', async () => {
    expect(await attempt(`http://internal.test:${port}/`, ['loopback'])).toBe('blocked');
  });

  it('connect only to the allowed addresses of a name that resolves to several', async () => {
    expect(await attempt(`http://mixed.test:${port}/`, ['loopback'])).toBe('200 POST ok');
    expect(await attempt(`http://mixed.test:${port}/`, [])).toBe('blocked');
  });

  it('refuse a redirect to a private address or to a name resolving to one', async () => {
    const to = (target: string) => `http://127.0.0.1:${port}/?to=${encodeURIComponent(target)}`;
    expect(await attempt(to('http://10.0.0.1/'), ['loopback'])).toBe('blocked');
    expect(await attempt(to('http://169.254.169.254/latest/meta-data/'), ['loopback'])).toBe('blocked');
    expect(await attempt(to('http://internal.test/'), ['loopback'])).toBe('blocked');
    expect(await attempt(to('file:///etc/passwd'), ['loopback'])).toBe('blocked');
    // An allowed redirect is followed; a 302 after a POST becomes a GET (Fetch standard).
    expect(await attempt(to(`http://loopback.test:${port}/final`), ['loopback'])).toBe('200 GET ok');
  });

  it('refuse other schemes', async () => {
    expect(await attempt('ftp://127.0.0.1/', ['loopback'])).toBe('blocked');
  });
});
