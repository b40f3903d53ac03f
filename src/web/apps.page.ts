// Apps (`/account`): the apps the person authorized, with their permissions and a revoke button
// each, and signing out. Signed out, the sign-in form.
import { html, type Html } from '../lib/html.ts';
import { accountSignInPage } from '../account/sign-in.routes.ts';
import { listAuthorizedApps } from '../oauth/grants.logic.ts';
import type { AppPage } from './page.ts';

export const appsPage: AppPage = {
  path: '/account',
  title: 'Apps',
  narrow: true,
  visitor: async (request, reply, { config }) => accountSignInPage(request, reply, config),
  render: async ({ db, viewer, csrf, config }) => {
    const apps = await listAuthorizedApps(db, viewer.id);
    const list: Html =
      apps.length === 0
        ? html`<p class="empty">
            You have not authorized any app yet. An app asks for access when you sign in to Waypost from it: give it
            this server's address, <code>${config.baseUrl}</code>. To send your phone's location,
            <a href="/app/trackers">set up a tracker</a>; to write an app, read <a href="/docs">the API docs</a>.
          </p>`
        : html`<ul class="apps">
            ${apps.map(
              (a) =>
                html`<li class="card">
                  <h3>${a.clientName}</h3>
                  ${a.assistant ? html`<p>AI assistant: reaches your Waypost through the assistant connection (MCP).</p>` : ''}
                  ${
                    a.permissions.length > 0
                      ? html`<ul aria-label="Permissions of ${a.clientName}">
                          ${a.permissions.map((p) => html`<li>${p.description} <small>(<code>${p.name}</code>)</small></li>`)}
                        </ul>`
                      : html`<p>No permissions.</p>`
                  }
                  <form method="post" action="/account/apps/${a.grantId}/revoke">
                    <input type="hidden" name="csrf" value="${csrf}" />
                    <button type="submit" class="danger" aria-label="Revoke access of ${a.clientName}">
                      Revoke access
                    </button>
                  </form>
                </li>`,
            )}
          </ul>`;
    return {
      title: 'Your account',
      body: html`<h1>Your account</h1>
        <p>Signed in as <strong>${viewer.username}</strong>. <a href="/account/password">Change your password</a></p>
        <h2>Apps you have authorized</h2>
        <p>Revoking an app ends every token it holds; it must ask you again to get back in.</p>
        ${list}
        <h2>Your data</h2>
        <p><a href="/export" download>Export: download everything</a> (one ZIP file, private items included).</p>
        <p><a href="/account/delete">Delete your account</a> and all its data.</p>
        <form method="post" action="/account/sign-out">
          <input type="hidden" name="csrf" value="${csrf}" />
          <button type="submit">Sign out</button>
        </form>`,
    };
  },
};
