// What a page of the web app is, and what it gets to render itself. Pages read through the
// logic functions the API routes call, as the signed-in person (`ctx.auth`, every permission, as
// the session's API calls have), so they never see more than a token with every permission
// would: the same scope and ownership rules (docs/design.md "The web app").
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Html } from '../lib/html.ts';
import type { Config } from '../config.ts';
import type { Auth } from '../core/caller.ts';
import type { Db } from '../db/database.ts';
import type { Cursors } from '../core/cursors.ts';
import type { Outbound } from '../lib/ssrf.ts';
import type { SecretKey } from '../services/secrets.ts';

/** The person signed in. */
export interface Viewer {
  id: string;
  username: string;
  displayName: string;
}

export interface PageContext {
  request: FastifyRequest;
  reply: FastifyReply;
  viewer: Viewer;
  /** This browser's CSRF token (forms and the scripts' X-CSRF-Token). */
  csrf: string;
  /** The signed-in person as the logic functions take a caller: every permission. */
  auth: Auth;
  config: Config;
  db: Db;
  /** The server's collection cursors (src/core/cursors.ts). */
  cursors: Cursors;
  /** The key of services' secrets (src/services/secrets.ts). */
  secretsKey: SecretKey;
  /** Requests to outside servers, through the outbound guard (src/lib/ssrf.ts). */
  outbound: Outbound;
}

export interface Rendered {
  body: Html;
  status?: number;
  /** Instead of a page, a 303 to this path of the app (after a step that changed something). */
  redirect?: string;
  /** Overrides the page's title (e.g. a medium's caption). */
  title?: string;
  /** Extra elements for <head> (a map's module and stylesheet). */
  head?: Html;
}

export interface AppPage {
  /** The route, e.g. `/media` or `/media/:id`. */
  path: string;
  /** The bar's entry this page belongs to (src/web/nav.ts); default its path. */
  nav?: string;
  title: string;
  /** Asset names of its ES modules (src/web/assets/), loaded after app.js. */
  scripts?: readonly string[];
  styles?: readonly string[];
  narrow?: boolean;
  render: (ctx: PageContext) => Promise<Rendered>;
  /** What a visitor who is not signed in gets instead of the sign-in form. */
  visitor?: (request: FastifyRequest, reply: FastifyReply, deps: { db: Db; config: Config }) => Promise<string>;
}
