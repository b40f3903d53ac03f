// Serves the web app's pages (src/web/registry.ts) in the layout: signed in, the page; signed
// out, the sign-in form that comes back to it (or the page's visitor version).
import type { FastifyInstance } from 'fastify';
import { html, type Html } from '../lib/html.ts';
import { sendHtml } from '../account/replies.ts';
import { csrfToken } from '../account/csrf.ts';
import { browserSessions } from '../account/sessions.http.ts';
import { accountSignInPage } from '../account/sign-in.routes.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import { AppError } from '../core/errors.ts';
import { sessionAuth } from '../http/auth.ts';
import { cursorsFor } from '../core/cursors.ts';
import { createOutbound } from '../lib/ssrf.ts';
import { secretsKey } from '../services/secrets.ts';
import { findUserById } from '../users/users.repo.ts';
import { layout } from './layout.ts';
import type { AppPage, Rendered } from './page.ts';

/** A page whose read was refused (a missing item, a bad filter): the reason, readable. */
function problemBody(error: AppError): Html {
  const heading = error.status === 404 ? 'Not found' : 'This page cannot be shown';
  return html`<h1>${heading}</h1>
    <p class="error" role="alert">${error.message}</p>
    <p><a href="/">Back to the timeline</a></p>`;
}

export async function webAppRoutes(
  app: FastifyInstance,
  { db, config, pages }: { db: Db; config: Config; pages: readonly AppPage[] },
) {
  const registered = new Set(pages.map((page) => page.path));
  const sessionOf = browserSessions(db, config.baseUrl, config.secretKey);
  // A page that reaches an outside server (connecting a service) waits for it in the request.
  const outbound = createOutbound({ allow: config.outboundAllow, timeoutMs: 10_000 });
  app.addHook('onClose', () => outbound.close());
  const deps = {
    config,
    db,
    cursors: cursorsFor(config.secretKey),
    secretsKey: secretsKey(config.secretKey),
    outbound,
  };
  for (const page of pages) {
    app.get(page.path, { schema: { hide: true } }, async (request, reply) => {
      const session = await sessionOf(request);
      const user = session ? await findUserById(db, session.userId) : undefined;
      if (!session || !user) {
        if (page.visitor) return sendHtml(reply, 200, await page.visitor(request, reply, { db, config }));
        return sendHtml(reply, 200, accountSignInPage(request, reply, config, { next: request.url }));
      }
      const csrf = csrfToken(request, reply, config.baseUrl, config.secretKey);
      const viewer = { id: user.id, username: user.username, displayName: user.display_name };
      let rendered: Rendered;
      try {
        rendered = await page.render({ request, reply, viewer, csrf, auth: sessionAuth(session), ...deps });
      } catch (error) {
        if (!(error instanceof AppError) || error.status >= 500) throw error;
        rendered = { status: error.status, title: 'Not available', body: problemBody(error) };
      }
      if (rendered.redirect) return reply.redirect(rendered.redirect, 303);
      return sendHtml(
        reply,
        rendered.status ?? 200,
        layout({
          title: rendered.title ?? page.title,
          body: rendered.body,
          viewer,
          csrf,
          current: page.nav ?? page.path,
          pages: registered,
          scripts: page.scripts,
          styles: page.styles,
          narrow: page.narrow,
          head: rendered.head,
        }),
      );
    });
  }
}
