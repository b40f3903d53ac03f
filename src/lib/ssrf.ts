// Outbound HTTP that only reaches public addresses (API.md "Services and groups": "Outbound
// requests go only to public addresses unless the operator allows others (no SSRF)").
//
// The check runs on the address a socket actually connects to: a DNS lookup hook inside the
// connector, so a name that resolves to a public address when validated and to 127.0.0.1 when
// connecting (DNS rebinding) is still refused. IP literals never reach a lookup, so the
// connector checks them itself. Redirects are followed by hand, each hop through the same
// connector, so a public URL that redirects to a private one is refused too.
import dns from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { Agent, buildConnector, fetch, type Response } from 'undici';
import type { AddressCategory } from '../config.ts';

/** A request refused because its target is not a public address (or not http/https). */
export class OutboundBlockedError extends Error {
  override name = 'OutboundBlockedError';
}

function blockList(v4: string[], v6: string[]): BlockList {
  const list = new BlockList();
  for (const cidr of v4) {
    const [net = '', bits = '32'] = cidr.split('/');
    list.addSubnet(net, Number(bits), 'ipv4');
  }
  for (const cidr of v6) {
    const [net = '', bits = '128'] = cidr.split('/');
    list.addSubnet(net, Number(bits), 'ipv6');
  }
  return list;
}

// Checked in this order, so the most specific kind wins: allowing link-local does not allow the
// cloud metadata address inside it. Sources: RFC 6890 special-purpose registries, RFC 6598
// (CGNAT), RFC 4193 (unique local), RFC 4291 (link-local, loopback), cloud provider docs.
// IPv4-mapped IPv6 (::ffff:a.b.c.d) is matched against the IPv4 ranges by BlockList itself.
const CATEGORIES: [AddressCategory, BlockList][] = [
  ['metadata', blockList(['169.254.169.254', '169.254.170.2', '100.100.100.200'], ['fd00:ec2::254'])],
  // 0.0.0.0/8 and :: reach the local host on Linux, so they count as loopback.
  ['loopback', blockList(['127.0.0.0/8', '0.0.0.0/8'], ['::1', '::'])],
  ['private', blockList(['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16'], [])],
  ['link-local', blockList(['169.254.0.0/16'], ['fe80::/10'])],
  ['cgnat', blockList(['100.64.0.0/10'], [])],
  ['unique-local', blockList([], ['fc00::/7'])],
  [
    'reserved',
    blockList(
      [
        '192.0.0.0/24',
        '192.0.2.0/24',
        '198.18.0.0/15',
        '198.51.100.0/24',
        '203.0.113.0/24',
        '224.0.0.0/4',
        '240.0.0.0/4',
      ],
      // Documentation, multicast, discard, and the prefixes that embed an IPv4 address
      // (NAT64, 6to4, Teredo), which could smuggle a private one.
      ['2001:db8::/32', 'ff00::/8', '100::/64', '64:ff9b::/96', '64:ff9b:1::/48', '2002::/16', '2001::/32'],
    ),
  ],
];

/** The kind of a literal IP address: one of the non-public categories, or `public`. */
export function classifyAddress(address: string): AddressCategory | 'public' {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const family = isIP(bare);
  if (family === 0) throw new OutboundBlockedError(`not an IP address: ${address}`);
  const type = family === 4 ? 'ipv4' : 'ipv6';
  for (const [category, list] of CATEGORIES) {
    if (list.check(bare, type)) return category;
  }
  return 'public';
}

/** Throws unless the address is public or of a kind the operator allows. */
export function assertAddressAllowed(address: string, allow: ReadonlySet<AddressCategory>): void {
  const category = classifyAddress(address);
  if (category !== 'public' && !allow.has(category)) {
    throw new OutboundBlockedError(
      `refused to connect to ${address}: a ${category} address (WAYPOST_OUTBOUND_ALLOW does not allow it)`,
    );
  }
}

function isAllowed(address: string, allow: ReadonlySet<AddressCategory>): boolean {
  const category = classifyAddress(address);
  return category === 'public' || allow.has(category);
}

type Lookup = typeof dns.lookup;

/** A `lookup` for net.connect that resolves as usual, then keeps only the allowed addresses. */
function guardedLookup(allow: ReadonlySet<AddressCategory>, resolve: Lookup): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses;
      const allowed = list.filter(({ address }) => isAllowed(address, allow));
      const first = allowed[0];
      if (!first) {
        const refused = list.map(({ address }) => `${address} (${classifyAddress(address)})`).join(', ');
        const reason = `refused to connect to ${hostname}: it resolves to ${refused || 'nothing'}, which WAYPOST_OUTBOUND_ALLOW does not allow`;
        return callback(new OutboundBlockedError(reason), '', 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, allowed);
      callback(null, first.address, first.family);
    });
  };
}

export interface OutboundOptions {
  allow: ReadonlySet<AddressCategory>;
  /** Whole-request timeout, ms (default 15 s: well inside a job lease). */
  timeoutMs?: number;
  maxRedirects?: number;
  /** DNS resolution; tests pass a fake to have a name resolve to a private address. */
  lookup?: Lookup;
}

export interface OutboundRequest {
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** A string, so a 307/308 redirect can send it again. */
  body?: string;
}

/** Sends HTTP requests that reach only allowed addresses. One per process (it pools sockets). */
export interface Outbound {
  request(url: string, init: OutboundRequest): Promise<Response>;
  close(): Promise<void>;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export function createOutbound({ allow, timeoutMs = 15_000, maxRedirects = 5, lookup }: OutboundOptions): Outbound {
  const connect = buildConnector({ lookup: guardedLookup(allow, lookup ?? dns.lookup), timeout: timeoutMs });
  const agent = new Agent({
    connect: (options, callback) => {
      // IP literals skip the lookup hook, so they are checked here, on the connecting side.
      const host = options.hostname;
      if (isIP(host.replace(/^\[|\]$/g, '')) !== 0) {
        try {
          assertAddressAllowed(host, allow);
        } catch (error) {
          return callback(error as Error, null);
        }
      }
      return connect(options, callback);
    },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });

  async function request(url: string, init: OutboundRequest): Promise<Response> {
    let target = new URL(url);
    let { method, body } = init;
    const headers = { ...init.headers };
    for (let hop = 0; ; hop += 1) {
      if (target.protocol !== 'http:' && target.protocol !== 'https:') {
        throw new OutboundBlockedError(`refused a ${target.protocol} URL: only http and https`);
      }
      let response: Response;
      try {
        response = await fetch(target, {
          method,
          headers,
          ...(body === undefined ? {} : { body }),
          redirect: 'manual',
          dispatcher: agent,
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (error) {
        throw unwrapBlocked(error);
      }
      const location = response.headers.get('location');
      if (!REDIRECTS.has(response.status) || location === null) return response;
      await response.body?.cancel();
      if (hop >= maxRedirects) throw new Error(`more than ${maxRedirects} redirects`);
      const next = new URL(location, target);
      // Fetch standard, "HTTP-redirect fetch": 303 (and 301/302 after a POST) become a GET
      // without a body; credentials are not carried to another origin.
      if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
        delete headers['content-type'];
      }
      if (next.origin !== target.origin) delete headers.authorization;
      target = next;
    }
  }

  return { request, close: () => agent.close() };
}

/** fetch wraps connect errors in a TypeError; surface our refusal so callers can tell it apart. */
function unwrapBlocked(error: unknown): unknown {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof OutboundBlockedError) return cause;
  }
  return error;
}
