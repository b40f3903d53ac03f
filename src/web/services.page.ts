// Services and groups: a form per service type built from the connector registry's config
// schemas (./services-forms.html.ts: plain labels and help; Mastodon connected by signing in on
// its server; a webhook's signing secret made by Waypost and shown once), each service with an
// on/off switch, what it does and how its last attempt went, an Edit form from the same schemas
// (secrets left blank are kept), a test button and remove; a service restored without its
// secrets asks for them; groups with their members (checkboxes that add or remove at once) and
// delete. Tracker types have their own page (their ingest URL and token).
import { html, type Html } from '../lib/html.ts';
import { deleteButton } from './buttons.html.ts';
import { connectors } from '../services/connectors/index.ts';
import { listGroups, listServices } from '../services/services.logic.ts';
import { type Service, type ServiceGroup } from '../services/services.schemas.ts';
import type { AppPage } from './page.ts';
import {
  addForms,
  configFields,
  isPublishing,
  signInAgain,
  TYPE_LABEL,
  type PublishingType,
} from './services-forms.html.ts';

/** The Edit form of a service; for one that lacks its secrets, open, and it enables the service too. */
function editForm(service: Service & { type: PublishingType }): Html {
  const connector = connectors[service.type];
  // A type that signs in gets its secrets by signing in again, not in this form.
  const missing = connector.connect ? [] : (service.missing_secrets ?? []);
  const prefix = `edit-${service.id}`;
  return html`<details class="edit" ${missing.length > 0 ? html`open` : ''}>
    <summary>
      ${missing.length > 0 ? 'Enter its secrets' : 'Edit'}<span class="visually-hidden"> ${service.name}</span>
    </summary>
    <form data-api="POST /services/${service.id}" data-done="reload">
      <label for="${prefix}-name">Name</label>
      <input id="${prefix}-name" name="name" required maxlength="100" value="${service.name}" />
      ${configFields(service.type, prefix, { config: service.config, missing })}
      ${missing.length > 0 ? html`<input type="hidden" name="enabled" value="true" data-type="json" />` : ''}
      <button type="submit">${missing.length > 0 ? 'Save and enable' : 'Save changes'}</button>
    </form>
  </details>`;
}

/** The names of a service's secret fields, as its form labels them. */
function fieldTitles(type: PublishingType, fields: readonly string[]): string {
  const properties = connectors[type].configSchema.properties as Record<string, { title?: string }>;
  return fields.map((field) => properties[field]?.title ?? field).join(', ');
}

/** What a service does, in words. */
function doesWhat(service: Service): string {
  const publishes = service.capabilities.includes('publish');
  const imports = service.capabilities.includes('import');
  if (publishes && imports) return 'Gets the posts you send it, and brings its own posts here.';
  return publishes ? 'Gets the posts you send it.' : 'Brings its posts here.';
}

function missingWarning(service: Service & { type: PublishingType }, missing: readonly string[]): Html {
  if (missing.length === 0) return html``;
  if (connectors[service.type].connect) {
    return html`<p class="warning">
      Needs you to sign in again on ${TYPE_LABEL[service.type]}: it was restored from an export without its access, and
      stays disabled until you do.
    </p>`;
  }
  return html`<p class="warning">
    Needs its secrets again (${fieldTitles(service.type, missing)}): it was restored from an export without them, and
    stays disabled until you enter them below.
  </p>`;
}

/** The buttons under a service: Test, a new secret or signing in again where the type has them, Remove. */
function actions(service: Service & { type: PublishingType }): Html {
  const connector = connectors[service.type];
  const renew = connector.makeSecrets
    ? html`<button
        type="button"
        class="secondary small"
        data-renew="/services/${service.id}/secret"
        data-confirm="Make a new signing secret for ${service.name}? The one your receiver has stops working at once."
      >
        New signing secret<span class="visually-hidden"> for ${service.name}</span>
      </button>`
    : '';
  return html`<div class="row actions">
    <button type="button" class="secondary small" data-test="${service.id}">
      Test<span class="visually-hidden"> ${service.name}</span>
    </button>
    ${renew} ${connector.connect ? signInAgain(service) : ''}
    ${deleteButton({
      path: `/services/${service.id}`,
      confirm: `Remove ${service.name}? Its queued deliveries are cancelled.`,
      text: 'Remove',
      what: service.name,
    })}
  </div>`;
}

function serviceCard(service: Service & { type: PublishingType }, connected: string | undefined): Html {
  const missing = service.missing_secrets ?? [];
  const switchId = `enabled-${service.id}`;
  return html`<li class="card service" data-item data-service="${service.id}" id="service-${service.id}">
    <h3>${service.name} <span class="badge">${TYPE_LABEL[service.type]}</span></h3>
    ${
      connected === service.id
        ? html`<p class="notice" role="status">
            Connected. Put it in a group below, and your posts to that group go to ${service.name}.
          </p>`
        : ''
    }
    ${missingWarning(service, missing)}
    <div class="row switch-row">
      <label class="switch" for="${switchId}"
        ><input
          id="${switchId}"
          type="checkbox"
          role="switch"
          data-enable="/services/${service.id}"
          ${service.enabled ? html`checked` : ''}
          ${missing.length > 0 ? html`disabled` : ''}
          aria-describedby="${switchId}-status"
        />
        Enabled</label
      >
      <span class="help" id="${switchId}-status" role="status"
        >${service.enabled ? 'On: it gets new posts.' : 'Off: it gets nothing new.'}</span
      >
    </div>
    <p class="meta">${doesWhat(service)}</p>
    ${service.last_error ? html`<p class="error">Last error: ${service.last_error}</p>` : ''} ${editForm(service)}
    ${actions(service)}
    <div class="secret-result" aria-live="polite"></div>
    <p class="test-result" role="status"></p>
  </li>`;
}

function groupCard(group: ServiceGroup, services: Service[]): Html {
  return html`<li class="card" data-item>
    <h3>${group.name}</h3>
    <fieldset>
      <legend>Members of ${group.name}</legend>
      ${
        services.length === 0
          ? html`<p class="help">No services yet.</p>`
          : services.map(
              (s) =>
                html`<label class="inline"
                  ><input
                    type="checkbox"
                    data-member="/services/groups/${group.id}/${s.id}"
                    ${group.service_ids.includes(s.id) ? html`checked` : ''}
                  />
                  ${s.name}</label
                >`,
            )
      }
    </fieldset>
    <p class="member-status help" role="status"></p>
    ${deleteButton({
      path: `/services/groups/${group.id}`,
      confirm: `Delete the group ${group.name}? Its services stay.`,
      text: 'Delete group',
      what: group.name,
    })}
  </li>`;
}

export const servicesPage: AppPage = {
  path: '/app/services',
  title: 'Services',
  scripts: ['services.js'],
  render: async (ctx) => {
    const [services, groups] = await Promise.all([
      listServices(ctx.db, ctx.config.baseUrl, ctx.auth.userId, ctx.secretsKey),
      listGroups(ctx.db, ctx.auth.userId),
    ]);
    const publishing = services.filter((s): s is Service & { type: PublishingType } => isPublishing(s.type));
    const { connected } = ctx.request.query as { connected?: unknown };
    const justConnected = typeof connected === 'string' ? connected : undefined;
    const body = html`<h1>Services</h1>
      <p>
        A service is a place your posts are sent to (your Mastodon or Bluesky account, your website), or where posts
        come from (a feed). Passwords and tokens you give are stored encrypted and never shown again.
      </p>
      <h2>Your services</h2>
      ${
        publishing.length === 0
          ? html`<p>No services yet: add one below.</p>`
          : html`<ul class="plain-list" aria-label="Your services">
              ${publishing.map((service) => serviceCard(service, justConnected))}
            </ul>`
      }
      <h2>Add a service</h2>
      ${addForms()}
      <h2>Groups</h2>
      <p>A post is sent to the services of the groups you pick when you write it.</p>
      ${
        groups.length === 0
          ? html`<p>No groups yet.</p>`
          : html`<ul class="plain-list" aria-label="Your groups">
              ${groups.map((g) => groupCard(g, publishing))}
            </ul>`
      }
      <form data-api="POST /services/groups" data-done="reload" data-list="service_ids" class="card">
        <h3>New group</h3>
        <label for="group-name">Name</label>
        <input id="group-name" name="name" required maxlength="100" />
        ${
          publishing.length > 0
            ? html`<fieldset>
                <legend>Services in it</legend>
                ${publishing.map(
                  (s) =>
                    html`<label class="inline"
                      ><input type="checkbox" name="service_ids" value="${s.id}" data-type="list" /> ${s.name}</label
                    >`,
                )}
              </fieldset>`
            : ''
        }
        <button type="submit">Create group</button>
      </form>`;
    return { body };
  },
};
