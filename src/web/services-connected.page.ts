// Where a service's server sends the person back after they allowed Waypost there
// (docs/api.md "Connecting a service by signing in"): the sign-in is finished as the person
// signed in here (a state another person started connects nothing), then on to the Services
// page, which says what was connected; or the reason it was not, in words, with a way back.
import { html } from '../lib/html.ts';
import { AppError } from '../core/errors.ts';
import { finishConnection, type ConnectReturn } from '../services/connect.logic.ts';
import type { AppPage } from './page.ts';

const text = (value: unknown) => (typeof value === 'string' ? value : undefined);

export const servicesConnectedPage: AppPage = {
  path: '/app/services/connected',
  nav: '/app/services',
  title: 'Connecting a service',
  narrow: true,
  render: async (ctx) => {
    const query = ctx.request.query as Record<string, unknown>;
    const back: ConnectReturn = {
      state: text(query.state),
      code: text(query.code),
      error: text(query.error),
      error_description: text(query.error_description),
    };
    const deps = {
      db: ctx.db,
      key: ctx.secretsKey,
      baseUrl: ctx.config.baseUrl,
      outbound: ctx.outbound,
      now: Date.now,
    };
    try {
      const service = await finishConnection(deps, ctx.auth.userId, back);
      return { body: html``, redirect: `/app/services?connected=${encodeURIComponent(service.id)}` };
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      return {
        status: error.status,
        title: 'Not connected',
        body: html`<h1>Not connected</h1>
          <p class="error" role="alert">${error.message}</p>
          <p><a href="/app/services">Back to Services</a></p>`,
      };
    }
  },
};
