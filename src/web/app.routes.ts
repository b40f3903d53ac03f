// Serves the web app's pages (src/web/registry.ts) in the layout: signed in, the page; signed
// out, the sign-in form that comes back to it (or the page's visitor version).
import type { FastifyInstance } from 'fastify';
import { html, type Html } from '../lib/html.ts';
import { sendHtml } from '../account/replies.ts';
import { csrfToken } from '../account/csrf.ts';
import { sessionUserId } from '../account/sessions.http.ts';
import { accountSignInPage } from '../account/sign-in.routes.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import { AppError } from '../core/errors.ts';
import { isProblemCode } from '../core/problems.ts';
import { findUserById } from '../users/users.repo.ts';
import { layout } from './layout.ts';
import type { ApiAnswer, AppPage, Rendered } from './page.ts';

/** A page whose API read was refused (a missing item, a bad filter): the reason, readable. */
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
  for (const page of pages) {
    app.get(page.path, { schema: { hide: true } }, async (request, reply) => {
      const userId = await sessionUserId(db, config.baseUrl, request);
      const user = userId ? await findUserById(db, userId) : undefined;
      if (!user) {
        if (page.visitor) return sendHtml(reply, 200, await page.visitor(request, reply, { db, config }));
        return sendHtml(reply, 200, accountSignInPage(request, reply, config, { next: request.url }));
      }
      const csrf = csrfToken(request, reply, config.baseUrl, config.secretKey);
      const cookie = request.headers.cookie ?? '';
      const api = async <T>(path: string): Promise<ApiAnswer<T>> => {
        const answer = await app.inject({
          method: 'GET',
          url: path,
          headers: { cookie, accept: 'application/json', 'sec-fetch-site': 'same-origin' },
        });
        const data = answer.body ? (JSON.parse(answer.body) as unknown) : undefined;
        if (answer.statusCode >= 300) {
          const problem = data as { status?: number; code?: string; detail?: string } | undefined;
          throw new AppError(
            isProblemCode(problem?.code) ? problem.code : 'internal_error',
            problem?.detail ?? 'The request failed.',
          );
        }
        return { status: answer.statusCode, data: data as T, headers: answer.headers };
      };
      const viewer = { id: user.id, username: user.username, displayName: user.display_name };
      let rendered: Rendered;
      try {
        rendered = await page.render({ request, reply, viewer, csrf, config, db, api, app });
      } catch (error) {
        if (!(error instanceof AppError) || error.status >= 500) throw error;
        rendered = { status: error.status, title: 'Not available', body: problemBody(error) };
      }
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
