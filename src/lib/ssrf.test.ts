// The outbound guard against real sockets on loopback: literal addresses, names that resolve to
// private addresses, and redirects to either.
import type dns from 'node:dns';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressCategory } from '../config.ts';
import { assertAddressAllowed, classifyAddress, createOutbound, OutboundBlockedError, outboundFetch } from './ssrf.ts';

// Every form of an address, the kind it is judged as, and whether the default policy (nothing
// allowed) and a policy allowing `reserved` let a connection through. IPv6 forms that embed or
// reach an IPv4 address are judged by that IPv4 address, so allowing `reserved` never opens them.
const FORMS: [
  form: string,
  category: string,
  defaultPolicy: 'allowed' | 'refused',
  reservedAllowed: 'allowed' | 'refused',
][] = [
  ['127.0.0.1', 'loopback', 'refused', 'refused'],
  ['127.255.0.9', 'loopback', 'refused', 'refused'],
  ['0.0.0.0', 'loopback', 'refused', 'refused'],
  ['::1', 'loopback', 'refused', 'refused'],
  ['[::1]', 'loopback', 'refused', 'refused'],
  ['::', 'loopback', 'refused', 'refused'],
  ['10.0.0.1', 'private', 'refused', 'refused'],
  ['10.255.255.255', 'private', 'refused', 'refused'],
  ['172.16.0.1', 'private', 'refused', 'refused'],
  ['172.31.255.254', 'private', 'refused', 'refused'],
  ['192.168.1.1', 'private', 'refused', 'refused'],
  ['169.254.1.1', 'link-local', 'refused', 'refused'],
  ['169.254.169.254', 'metadata', 'refused', 'refused'],
  ['fd00:ec2::254', 'metadata', 'refused', 'refused'],
  ['100.64.0.1', 'cgnat', 'refused', 'refused'],
  ['fe80::1', 'link-local', 'refused', 'refused'],
  ['fe80::1%eth0', 'link-local', 'refused', 'refused'],
  ['fc00::1', 'unique-local', 'refused', 'refused'],
  ['fdff:ffff::1', 'unique-local', 'refused', 'refused'],
  // IPv4-mapped (RFC 4291 2.5.5.2), dotted and hex.
  ['::ffff:127.0.0.1', 'loopback', 'refused', 'refused'],
  ['::ffff:7f00:1', 'loopback', 'refused', 'refused'],
  ['[::ffff:7f00:1]', 'loopback', 'refused', 'refused'],
  ['0:0:0:0:0:ffff:7f00:1', 'loopback', 'refused', 'refused'],
  ['::ffff:10.1.2.3', 'private', 'refused', 'refused'],
  ['::ffff:169.254.169.254', 'metadata', 'refused', 'refused'],
  ['::ffff:8.8.8.8', 'public', 'allowed', 'allowed'],
  // IPv4-compatible (RFC 4291 2.5.5.1), dotted, hex, bracketed.
  ['::7f00:1', 'loopback', 'refused', 'refused'],
  ['::127.0.0.1', 'loopback', 'refused', 'refused'],
  ['[::127.0.0.1]', 'loopback', 'refused', 'refused'],
  ['::a00:1', 'private', 'refused', 'refused'],
  ['::a9fe:a9fe', 'metadata', 'refused', 'refused'],
  ['::808:808', 'public', 'allowed', 'allowed'],
  // IPv4-translated (RFC 2765).
  ['::ffff:0:7f00:1', 'loopback', 'refused', 'refused'],
  ['::ffff:0:127.0.0.1', 'loopback', 'refused', 'refused'],
  ['::ffff:0:c0a8:101', 'private', 'refused', 'refused'],
  ['::ffff:0:808:808', 'public', 'allowed', 'allowed'],
  // NAT64, well-known prefix (RFC 6052) and local-use prefix (RFC 8215) at each prefix length.
  ['64:ff9b::7f00:1', 'loopback', 'refused', 'refused'],
  ['64:ff9b::127.0.0.1', 'loopback', 'refused', 'refused'],
  ['64:ff9b::a9fe:a9fe', 'metadata', 'refused', 'refused'],
  ['64:ff9b::808:808', 'public', 'allowed', 'allowed'],
  ['64:ff9b:1::a00:1', 'private', 'refused', 'refused'], // /96
  ['64:ff9b:1:7f00:0:100::', 'loopback', 'refused', 'refused'], // /48: 7f 00 . 00 01
  ['64:ff9b:1:7f:0:1::', 'loopback', 'refused', 'refused'], // /56: 7f . 00 00 01
  ['64:ff9b:1:0:7f:1::', 'loopback', 'refused', 'refused'], // /64: 7f 00 00 01 after the u octet
  // 6to4 (RFC 3056): the IPv4 address in bits 16-47.
  ['2002:7f00:1::', 'loopback', 'refused', 'refused'],
  ['2002:a00:1::1', 'private', 'refused', 'refused'],
  ['2002:a9fe:a9fe::', 'metadata', 'refused', 'refused'],
  ['2002:808:808::1', 'public', 'allowed', 'allowed'],
  // Teredo (RFC 4380): the client's address, inverted, in the last 32 bits.
  ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback', 'refused', 'refused'],
  ['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'private', 'refused', 'refused'],
  ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', 'public', 'allowed', 'allowed'],
  // Reserved ranges that embed nothing: allowing `reserved` allows them.
  ['224.0.0.1', 'reserved', 'refused', 'allowed'],
  ['192.0.2.1', 'reserved', 'refused', 'allowed'],
  ['2001:db8::1', 'reserved', 'refused', 'allowed'],
  ['ff02::1', 'reserved', 'refused', 'allowed'],
  ['100::1', 'reserved', 'refused', 'allowed'],
  ['::ffff:224.0.0.1', 'reserved', 'refused', 'allowed'],
  ['8.8.8.8', 'public', 'allowed', 'allowed'],
  ['172.32.0.1', 'public', 'allowed', 'allowed'],
  ['2606:4700::1111', 'public', 'allowed', 'allowed'],
];

describe('classifyAddress', () => {
  it.each(FORMS)('%s is %s; default policy: %s; reserved allowed: %s', (form, category, byDefault, reserved) => {
    expect(classifyAddress(form)).toBe(category);
    const verdict = (allow: AddressCategory[]) => {
      try {
        assertAddressAllowed(form, new Set(allow));
        return 'allowed';
      } catch (error) {
        expect(error).toBeInstanceOf(OutboundBlockedError);
        return 'refused';
      }
    };
    expect(verdict([])).toBe(byDefault);
    expect(verdict(['reserved'])).toBe(reserved);
  });

  it('refuses a local-use NAT64 address unless every prefix length it fits reads as allowed', () => {
    // Zero "u" octet and suffix: it fits /48 (127.0.0.1), /56 (0.0.1.0), /64 (0.1.0.0) and /96 (0.0.0.0).
    expect(() => assertAddressAllowed('64:ff9b:1:7f00:0:100::', new Set(['private']))).toThrow(OutboundBlockedError);
    expect(() => assertAddressAllowed('64:ff9b:1:7f00:0:100::', new Set(['loopback']))).not.toThrow();
    // A nonzero suffix fits /96 only: 10.0.0.1.
    expect(() => assertAddressAllowed('64:ff9b:1::a00:1', new Set(['private']))).not.toThrow();
    expect(() => assertAddressAllowed('64:ff9b:1:abcd::808:808', new Set())).not.toThrow();
  });

  it('is not fooled by names that look like numbers: they are not literals', () => {
    for (const name of ['2130706433', '0x7f.1', '127.1', '017700000001', 'localhost']) {
      expect(() => classifyAddress(name)).toThrow(/not an IP address/);
    }
  });

  it('lets the operator allow a kind, but allowing link-local does not allow the metadata address', () => {
    expect(() => assertAddressAllowed('10.0.0.1', new Set())).toThrow(OutboundBlockedError);
    expect(() => assertAddressAllowed('10.0.0.1', new Set(['private']))).not.toThrow();
    for (const metadata of ['169.254.169.254', '::ffff:0:a9fe:a9fe']) {
      expect(classifyAddress(metadata)).toBe('metadata');
      expect(() => assertAddressAllowed(metadata, new Set(['link-local', 'reserved']))).toThrow(OutboundBlockedError);
    }
  });
});

// What a URL's host becomes before the connector sees it: WHATWG URL parsing turns every odd
// IPv4 form into dotted decimal and every IPv6 form into its compressed text, so the check at
// connect time judges the address the socket will use.
describe('URL hosts as the connector sees them', () => {
  it.each([
    ['http://2130706433/', '127.0.0.1'],
    ['http://0x7f.1/', '127.0.0.1'],
    ['http://0x7f000001/', '127.0.0.1'],
    ['http://127.1/', '127.0.0.1'],
    ['http://017700000001/', '127.0.0.1'],
    ['http://0177.0.0.1/', '127.0.0.1'],
    ['http://127.0.0.1./', '127.0.0.1'],
    ['http://[::127.0.0.1]/', '[::7f00:1]'],
    ['http://[::ffff:127.0.0.1]/', '[::ffff:7f00:1]'],
    ['http://[::ffff:0:127.0.0.1]/', '[::ffff:0:7f00:1]'],
    ['http://[0:0:0:0:0:0:0:1]/', '[::1]'],
    ['http://[64:ff9b::127.0.0.1]/', '[64:ff9b::7f00:1]'],
  ])('%s has host %s, which is refused', (url, host) => {
    expect(new URL(url).hostname).toBe(host);
    expect(classifyAddress(host)).toBe('loopback');
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
    'mapped.test': [{ address: '::ffff:7f00:1', family: 6 }],
    'translated.test': [{ address: '::ffff:0:a00:5', family: 6 }],
    'nat64.test': [{ address: '64:ff9b::a9fe:a9fe', family: 6 }],
    'sixtofour.test': [{ address: '2002:c0a8:101::1', family: 6 }],
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

  it('refuse every loopback form, odd IPv4 and embedding IPv6 alike, at connect time', async () => {
    const forms = [
      '2130706433',
      '0x7f.1',
      '127.1',
      '017700000001',
      '[::127.0.0.1]',
      '[::7f00:1]',
      '[::ffff:0:7f00:1]',
      '[64:ff9b::7f00:1]',
      '[2002:7f00:1::]',
      '[2001:0:4136:e378:8000:63bf:80ff:fffe]',
    ];
    for (const host of forms) {
      expect(await attempt(`http://${host}:${port}/`, ['reserved', 'private'])).toBe('blocked');
    }
    // The odd IPv4 forms reach the address they were judged as: with loopback allowed, the server.
    for (const host of ['2130706433', '0x7f.1', '127.1']) {
      expect(await attempt(`http://${host}:${port}/`, ['loopback'])).toBe('200 POST ok');
    }
  });

  it('refuse a name that resolves to an IPv6 form of a private or loopback address', async () => {
    for (const name of ['mapped.test', 'translated.test', 'nat64.test', 'sixtofour.test']) {
      expect(await attempt(`http://${name}:${port}/`, ['reserved'])).toBe('blocked');
    }
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

describe('outboundFetch (the guarded client as a fetch, for client libraries)', () => {
  it('sends through the guard: refused where the client is refused, answered where it is allowed', async () => {
    const refused = createOutbound({ allow: new Set(), lookup: fakeDns, timeoutMs: 2000 });
    const allowed = createOutbound({ allow: new Set(['loopback']), lookup: fakeDns, timeoutMs: 2000 });
    try {
      await expect(outboundFetch(refused)(`http://loopback.test:${port}/`)).rejects.toBeInstanceOf(
        OutboundBlockedError,
      );
      const body = new Uint8Array([1, 2, 3]);
      const answer = await outboundFetch(allowed)(new Request(`http://127.0.0.1:${port}/`, { method: 'POST', body }));
      expect(`${answer.status} ${await answer.text()}`).toBe('200 POST ok');
      await expect(outboundFetch(allowed)(`http://127.0.0.1:${port}/`, { method: 'PUT' })).rejects.toBeInstanceOf(
        OutboundBlockedError,
      );
    } finally {
      await refused.close();
      await allowed.close();
    }
  });
});
