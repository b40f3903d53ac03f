// Services and groups: a form per service type built from the connector registry's config
// schemas (secret fields write-only), each service with its status, last error, a test button
// and remove; groups with their members (checkboxes that add or remove at once) and delete.
// Tracker types have their own page (their ingest URL and token).
import { html, type Html } from '../account/html.ts';
import { deleteButton } from './buttons.html.ts';
import { connectors, SERVICE_TYPES } from '../services/connectors/index.ts';
import type { GroupObject, ServiceObject } from './api-types.ts';
import type { AppPage } from './page.ts';

interface FieldSchema {
  description?: string;
  maxLength?: number;
  pattern?: string;
  type?: string;
  minimum?: number;
  maximum?: number;
}

const PUBLISHING = SERVICE_TYPES.filter((type) => !connectors[type].ingest);

function typeForm(type: (typeof PUBLISHING)[number]): Html {
  const connector = connectors[type];
  const schema = connector.configSchema as unknown as {
    properties: Record<string, FieldSchema>;
    required?: string[];
  };
  const required = new Set(schema.required ?? []);
  const fields = Object.entries(schema.properties).map(([key, field]) => {
    const id = `${type}-${key}`;
    const secret = connector.secretFields.includes(key);
    const kind =
      field.type === 'boolean'
        ? 'checkbox'
        : field.type === 'integer' || field.type === 'number'
          ? 'number'
          : secret
            ? 'password'
            : 'text';
    const dataType =
      kind === 'checkbox' ? 'boolean' : kind === 'number' ? 'number' : required.has(key) ? '' : 'optional';
    return html`<label for="${id}">${key.replaceAll('_', ' ')}${required.has(key) ? '' : ' (optional)'}</label>
      <input
        id="${id}"
        name="config.${key}"
        type="${kind}"
        ${dataType ? html`data-type="${dataType}"` : ''}
        ${required.has(key) && kind !== 'checkbox' ? html`required` : ''}
        ${field.maxLength ? html`maxlength="${field.maxLength}"` : ''}
        ${secret ? html`autocomplete="new-password"` : html`autocomplete="off"`}
        aria-describedby="${id}-help"
      />
      <span class="help" id="${id}-help">${field.description ?? ''}</span>`;
  });
  return html`<details class="card">
    <summary>Add a ${type} service</summary>
    <p class="help">${connector.description}</p>
    <form data-api="POST /services" data-done="reload">
      <input type="hidden" name="type" value="${type}" />
      <label for="${type}-name">Name</label>
      <input id="${type}-name" name="name" required maxlength="100" />
      ${fields}
      <button type="submit">Add ${type} service</button>
    </form>
  </details>`;
}

function serviceCard(service: ServiceObject): Html {
  const config = Object.entries(service.config);
  return html`<li class="card service" data-item data-service="${service.id}">
    <h3>${service.name} <span class="badge">${service.type}</span></h3>
    <p class="meta">
      ${service.enabled ? 'Enabled' : 'Disabled'}${service.status ? html` · status ${service.status}` : ''} ·
      ${service.capabilities.join(', ')}
    </p>
    ${service.last_error ? html`<p class="error">Last error: ${service.last_error}</p>` : ''}
    ${
      config.length > 0
        ? html`<dl class="meta">
            ${config.map(
              ([key, value]) =>
                html`<dt>${key}</dt>
                  <dd><code>${String(value)}</code></dd>`,
            )}
          </dl>`
        : ''
    }
    <div class="row">
      <button type="button" class="secondary small" data-test="${service.id}">Test</button>
      ${deleteButton({
        path: `/services/${service.id}`,
        confirm: `Remove ${service.name}? Its queued deliveries are cancelled.`,
        text: 'Remove',
        what: service.name,
      })}
    </div>
    <p class="test-result" role="status"></p>
  </li>`;
}

function groupCard(group: GroupObject, services: ServiceObject[]): Html {
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
      ctx.api<ServiceObject[]>('/services'),
      ctx.api<GroupObject[]>('/services/groups'),
    ]);
    const publishing = services.data.filter((s) => (PUBLISHING as readonly string[]).includes(s.type));
    const body = html`<h1>Services</h1>
      <p>A service is a place your posts are sent to. Secrets you enter are stored encrypted and never shown again.</p>
      <h2>Your services</h2>
      ${
        publishing.length === 0
          ? html`<p>No services yet.</p>`
          : html`<ul class="plain-list" aria-label="Your services">
              ${publishing.map(serviceCard)}
            </ul>`
      }
      ${PUBLISHING.map(typeForm)}
      <h2>Groups</h2>
      <p>A post is sent to the services of the groups you pick when you write it.</p>
      ${
        groups.data.length === 0
          ? html`<p>No groups yet.</p>`
          : html`<ul class="plain-list" aria-label="Your groups">
              ${groups.data.map((g) => groupCard(g, publishing))}
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
