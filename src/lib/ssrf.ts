// Outbound HTTP that only reaches public addresses (docs/api.md "Services and groups": "Outbound
// requests go only to public addresses unless the operator allows others (no SSRF)").
//
// The check runs on the address a socket actually connects to: a DNS lookup hook inside the
// connector, so a name that resolves to a public address when validated and to 127.0.0.1 when
// connecting (DNS rebinding) is still refused. IP literals never reach a lookup, so the
// connector checks them itself. Redirects are followed by hand, each hop through the same
// connector, so a public URL that redirects to a private one is refused too.
import dns from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, buildConnector, fetch, type FormData, type Response } from 'undici';
import type { AddressCategory } from '../config.ts';

/** A request refused because its target is not a public address (or not http/https). */
export class OutboundBlockedError extends Error {
  override name = 'OutboundBlockedError';
}

/**
 * The words of a refusal: the host as the URL gave it, never what it resolved to nor the kind
 * of address, since the message reaches people (a service test's answer, a delivery's and a
 * service's `last_error`) who could otherwise map the operator's internal names. The operator
 * finds the address on the server (`getent hosts <name>`).
 */
const notAllowed = (host: string) =>
  new OutboundBlockedError(`refused to connect to ${host}: the address is not allowed (see WAYPOST_OUTBOUND_ALLOW)`);

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Range = [Address, number];

const ranges = (cidrs: string[]): Range[] => cidrs.map((cidr) => ipaddr.parseCIDR(cidr));

// Checked in this order, so the most specific kind wins: allowing link-local does not allow the
// cloud metadata address inside it. Sources: RFC 6890 special-purpose registries, RFC 6598
// (CGNAT), RFC 4193 (unique local), RFC 4291 (link-local, loopback), cloud provider docs.
// IPv6 forms that embed or reach an IPv4 address never get here as themselves: `reaches`
// below turns them into that IPv4 address first.
const CATEGORIES: [AddressCategory, Range[]][] = [
  ['metadata', ranges(['169.254.169.254/32', '169.254.170.2/32', '100.100.100.200/32', 'fd00:ec2::254/128'])],
  // 0.0.0.0/8 and :: reach the local host on Linux, so they count as loopback.
  ['loopback', ranges(['127.0.0.0/8', '0.0.0.0/8', '::1/128', '::/128'])],
  ['private', ranges(['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16'])],
  ['link-local', ranges(['169.254.0.0/16', 'fe80::/10'])],
  ['cgnat', ranges(['100.64.0.0/10'])],
  ['unique-local', ranges(['fc00::/7'])],
  [
    'reserved',
    ranges([
      '192.0.0.0/24',
      '192.0.2.0/24',
      '192.88.99.0/24',
      '198.18.0.0/15',
      '198.51.100.0/24',
      '203.0.113.0/24',
      '224.0.0.0/4',
      '240.0.0.0/4',
      // Documentation (RFC 3849, RFC 9637), multicast, discard (RFC 6666), benchmarking
      // (RFC 5180), site-local (deprecated by RFC 3879, still routed inside some networks).
      '2001:db8::/32',
      '3fff::/20',
      'ff00::/8',
      '100::/64',
      '2001:2::/48',
      'fec0::/10',
    ]),
  ],
];

const v6 = (cidr: string) => ipaddr.IPv6.parseCIDR(cidr);
const IPV4_MAPPED = v6('::ffff:0:0/96'); // RFC 4291 2.5.5.2
const IPV4_COMPATIBLE = v6('::/96'); // RFC 4291 2.5.5.1 (deprecated, still parsed by stacks)
const IPV4_TRANSLATED = v6('::ffff:0:0:0/96'); // RFC 2765 (SIIT)
const NAT64_WELL_KNOWN = v6('64:ff9b::/96'); // RFC 6052 2.1
const NAT64_LOCAL = v6('64:ff9b:1::/48'); // RFC 8215: the operator picks the prefix length
const SIX_TO_FOUR = v6('2002::/16'); // RFC 3056 2
const TEREDO = v6('2001::/32'); // RFC 4380 4
const UNSPECIFIED_OR_LOOPBACK = v6('::/127');

/**
 * Where RFC 6052 2.2 puts the IPv4 address, by prefix length, and where the suffix that must
 * be zero starts (byte 8, the "u" octet, is zero too below /96).
 */
const RFC6052_LAYOUTS: { at: number[]; suffix: number }[] = [
  { at: [6, 7, 9, 10], suffix: 11 }, // /48
  { at: [7, 9, 10, 11], suffix: 12 }, // /56
  { at: [9, 10, 11, 12], suffix: 13 }, // /64
  { at: [12, 13, 14, 15], suffix: 16 }, // /96
];

function ipv4From(bytes: number[], at: number[]): ipaddr.IPv4 {
  return new ipaddr.IPv4(at.map((index) => bytes[index] ?? 0));
}

/**
 * The addresses a connection to `address` ends up at: the IPv4 address an IPv6 form embeds
 * (mapped, compatible, translated, NAT64, 6to4) or reaches (a Teredo client: its address,
 * inverted, in the last 32 bits), else the address itself. A local-use NAT64 prefix may be
 * /48, /56, /64 or /96, and only the operator knows which: every layout the address fits (zero
 * "u" octet and suffix) is a reading, and the address passes only if all of them do.
 */
function reaches(address: Address): Address[] {
  if (address.kind() === 'ipv4') return [address];
  const bytes = address.toByteArray();
  const last32 = [12, 13, 14, 15];
  if (address.match(IPV4_MAPPED) || address.match(IPV4_TRANSLATED) || address.match(NAT64_WELL_KNOWN)) {
    return [ipv4From(bytes, last32)];
  }
  // ::/128 and ::1 are IPv6's own unspecified and loopback addresses, not embedded ones.
  if (address.match(IPV4_COMPATIBLE) && !address.match(UNSPECIFIED_OR_LOOPBACK)) return [ipv4From(bytes, last32)];
  if (address.match(NAT64_LOCAL)) {
    const fits = ({ suffix }: { suffix: number }) =>
      suffix === 16 || (bytes[8] === 0 && bytes.slice(suffix).every((byte) => byte === 0));
    return RFC6052_LAYOUTS.filter(fits).map(({ at }) => ipv4From(bytes, at));
  }
  if (address.match(SIX_TO_FOUR)) return [ipv4From(bytes, [2, 3, 4, 5])];
  if (address.match(TEREDO)) return [new ipaddr.IPv4(last32.map((index) => ~(bytes[index] ?? 0) & 0xff))];
  return [address];
}

function categoryOf(address: Address): AddressCategory | 'public' {
  for (const [category, list] of CATEGORIES) {
    if (list.some(([network, bits]) => network.kind() === address.kind() && address.match(network, bits))) {
      return category;
    }
  }
  return 'public';
}

/**
 * Parses an IP literal, bracketed or not. Only the forms the socket layer itself takes for a
 * literal (`net.isIP`) count; anything else is a name, and names are judged by what they resolve to.
 */
function parseAddress(address: string): Address {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (isIP(bare) === 0) throw new OutboundBlockedError(`not an IP address: ${address}`);
  return ipaddr.parse(bare);
}

/** The kinds of every address a connection to this literal reaches (see `reaches`). */
function categoriesOf(address: string): (AddressCategory | 'public')[] {
  return reaches(parseAddress(address)).map(categoryOf);
}

/**
 * The kind of a literal IP address, judged by the IPv4 address it embeds or reaches, if any:
 * one of the non-public categories (the most specific, when a form has several readings), or
 * `public`.
 */
export function classifyAddress(address: string): AddressCategory | 'public' {
  const found = categoriesOf(address);
  for (const [category] of CATEGORIES) if (found.includes(category)) return category;
  return 'public';
}

function isAllowed(address: string, allow: ReadonlySet<AddressCategory>): boolean {
  return categoriesOf(address).every((category) => category === 'public' || allow.has(category));
}

/** Throws unless the address is public or of a kind the operator allows. */
export function assertAddressAllowed(address: string, allow: ReadonlySet<AddressCategory>): void {
  if (!isAllowed(address, allow)) throw notAllowed(address);
}

type Lookup = typeof dns.lookup;

/** A `lookup` for net.connect that resolves as usual, then keeps only the allowed addresses. */
function guardedLookup(allow: ReadonlySet<AddressCategory>, resolve: Lookup): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const allowed = addresses.filter(({ address }) => isAllowed(address, allow));
      const first = allowed[0];
      if (!first) return callback(notAllowed(hostname), '', 0);
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
  method: 'GET' | 'POST' | 'PUT';
  headers?: Record<string, string>;
  /** Held in memory (never a stream), so a 307/308 redirect can send it again. */
  body?: string | Uint8Array | FormData;
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

/**
 * The outbound client as a WHATWG `fetch`, for a library that takes one (@atproto/api): the
 * request is read into memory and sent through `request`, so it reaches only allowed addresses.
 * GET and POST only.
 */
export function outboundFetch(outbound: Outbound): typeof globalThis.fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const method = request.method.toUpperCase();
    if (method !== 'GET' && method !== 'POST') throw new OutboundBlockedError(`refused a ${method} request`);
    const body = method === 'POST' ? new Uint8Array(await request.arrayBuffer()) : undefined;
    const response = await outbound.request(request.url, {
      method,
      headers: Object.fromEntries(request.headers),
      ...(body ? { body } : {}),
    });
    return response;
  };
}
