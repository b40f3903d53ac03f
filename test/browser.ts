// A tiny browser for OAuth tests: a path-aware cookie jar, no automatic redirects, and a
// runner that walks sign-in and consent like a person would. (The same pages in real
// Chromium: src/oauth/browser.test.ts.)
import type { FastifyInstance } from 'fastify';
import * as oauth from 'oauth4webapi';

export class Browser {
  private jar = new Map<string, { value: string; path: string }>(); // key: name + '\0' + path

  async request(
    url: string,
    init: { form?: Record<string, string>; origin?: string; headers?: Record<string, string> } = {},
  ): Promise<Response> {
    const u = new URL(url);
    const cookie = [...this.jar.entries()]
      .filter(
        ([, c]) => c.path === '/' || u.pathname === c.path || u.pathname.startsWith(`${c.path.replace(/\/$/, '')}/`),
      )
      .map(([key, c]) => `${key.split('\0')[0]}=${c.value}`)
      .join('; ');
    const headers: Record<string, string> = { accept: 'text/html', ...init.headers };
    if (cookie) headers.cookie = cookie;
    let body: string | undefined;
    if (init.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      headers.origin = init.origin ?? u.origin;
      body = new URLSearchParams(init.form).toString();
    }
    const response = await fetch(u, { method: body ? 'POST' : 'GET', headers, body, redirect: 'manual' });
    for (const line of response.headers.getSetCookie()) this.store(line);
    return response;
  }

  cookieNames(): string[] {
    return [...this.jar.keys()].map((key) => key.split('\0')[0]!);
  }

  private store(line: string): void {
    const [pair = '', ...attributes] = line.split(';');
    const eq = pair.indexOf('=');
    const name = pair.slice(0, eq).trim();
    const value = pair.slice(eq + 1).trim();
    let path = '/';
    let expired = value === '';
    for (const attribute of attributes) {
      const [k = '', v = ''] = attribute.trim().split('=');
      if (k.toLowerCase() === 'path') path = v;
      if (k.toLowerCase() === 'expires' && Date.parse(v) < Date.now()) expired = true;
      if (k.toLowerCase() === 'max-age' && Number(v) <= 0) expired = true;
    }
    const key = `${name}\0${path}`;
    if (expired) this.jar.delete(key);
    else this.jar.set(key, { value, path });
  }
}

export interface FlowResult {
  /** The final redirect to the client, if the flow got that far. */
  callback?: URL;
  /** The pages shown on the way ("login", "consent"). */
  pages: string[];
  /** The last response that was not a redirect, when the flow stopped on a page. */
  stopped?: { status: number; location: string | null; body: string };
}

export function formOf(body: string): { action: string; csrf: string } | undefined {
  const action = /<form method="post" action="([^"]+)"/.exec(body)?.[1];
  const csrf = /name="csrf" value="([^"]+)"/.exec(body)?.[1];
  return action && csrf ? { action: action.replaceAll('&#39;', "'").replaceAll('&amp;', '&'), csrf } : undefined;
}

/** The name=value pairs of Set-Cookie lines, leaving out cookies that are being cleared. */
export const cookiesOf = (setCookie: string | string[] | undefined): string[] =>
  [setCookie ?? []]
    .flat()
    .map((line) => line.split(';')[0]!)
    .filter((pair) => !pair.endsWith('='));

/**
 * Signs in through the account form, as a browser on the server's own page does (through
 * inject): the cookies of the signed-in browser, and the CSRF token of its session (the one the
 * signed-in pages carry, for forms and for `X-CSRF-Token`).
 */
export async function signInThroughForm(
  app: FastifyInstance,
  username: string,
  password: string,
): Promise<{ cookie: string; csrf: string }> {
  const page = await app.inject({ method: 'GET', url: '/account' });
  const form = formOf(page.body);
  if (!form) throw new Error('the account page has no sign-in form');
  const before = cookiesOf(page.headers['set-cookie']).join('; ');
  const response = await app.inject({
    method: 'POST',
    url: form.action,
    headers: { cookie: before, origin: 'http://waypost.test' },
    payload: { csrf: form.csrf, username, password },
  });
  if (response.statusCode !== 303) throw new Error(`sign-in answered ${response.statusCode}`);
  const cookie = [before, ...cookiesOf(response.headers['set-cookie'])].join('; ');
  const account = await app.inject({ method: 'GET', url: '/account', headers: { cookie } });
  const signedIn = formOf(account.body);
  if (!signedIn) throw new Error('the signed-in account page has no form');
  return { cookie, csrf: signedIn.csrf };
}

/** Follows an authorization request through sign-in and consent until the client's redirect_uri. */
export async function runFlow(
  browser: Browser,
  url: string,
  opts: { redirectUri: string; username: string; password: string; decision?: 'allow' | 'deny' },
): Promise<FlowResult> {
  const pages: string[] = [];
  let next = url;
  for (let i = 0; i < 20; i++) {
    if (next.startsWith(opts.redirectUri)) return { callback: new URL(next), pages };
    const response = await browser.request(next);
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      next = new URL(location, next).href;
      continue;
    }
    const body = await response.text();
    const form = formOf(body);
    if (response.status === 200 && form?.action.endsWith('/login')) {
      pages.push('login');
      const r = await browser.request(new URL(form.action, next).href, {
        form: { csrf: form.csrf, username: opts.username, password: opts.password },
      });
      if (r.status !== 303) return { pages, stopped: { status: r.status, location: null, body: await r.text() } };
      next = new URL(r.headers.get('location')!, next).href;
      continue;
    }
    if (response.status === 200 && form?.action.endsWith('/confirm')) {
      pages.push('consent');
      const target = opts.decision === 'deny' ? form.action.replace(/\/confirm$/, '/abort') : form.action;
      const r = await browser.request(new URL(target, next).href, { form: { csrf: form.csrf } });
      next = new URL(r.headers.get('location')!, next).href;
      continue;
    }
    return { pages, stopped: { status: response.status, location, body } };
  }
  throw new Error('too many steps');
}

export interface AuthorizationRequest {
  /** The `/oauth/authorize` URL to open. */
  url: string;
  /** The PKCE verifier to send with the code. */
  verifier: string;
  state: string;
}

/**
 * An authorization request as a careful client makes it: response_type code, a fresh state
 * and a PKCE S256 challenge. `extra` adds or overrides parameters (to test refusals).
 */
export async function authorizationRequest(
  as: oauth.AuthorizationServer,
  o: { clientId: string; redirectUri: string; scope: string; state?: string; extra?: Record<string, string> },
): Promise<AuthorizationRequest> {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = o.state ?? oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    client_id: o.clientId,
    redirect_uri: o.redirectUri,
    response_type: 'code',
    scope: o.scope,
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    ...o.extra,
  }).toString();
  return { url: url.href, verifier, state };
}
