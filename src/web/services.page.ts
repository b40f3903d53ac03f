// Services and groups: a form per service type built from the connector registry's config
// schemas (secret fields write-only), each service with an on/off switch, its status, last
// error, an Edit form from the same schemas (secrets left blank are kept), a test button and
// remove; a service restored without its secrets asks for them; groups with their members (checkboxes that add or remove at once) and delete.
// Tracker types have their own page (their ingest URL and token).
import { html, type Html } from '../lib/html.ts';
import { deleteButton } from './buttons.html.ts';
import { connectors } from '../services/connectors/index.ts';
import { SERVICE_TYPES } from '../services/connectors/types.ts';
import { listGroups, listServices } from '../services/services.logic.ts';
import { type Service, type ServiceGroup } from '../services/services.schemas.ts';
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
type PublishingType = (typeof PUBLISHING)[number];

const isPublishing = (type: string): type is PublishingType => (PUBLISHING as readonly string[]).includes(type);

/**
 * The inputs of a type's settings, from its schema in the connector registry. Adding: empty,
 * required fields required. Editing (`current` given): filled with what is stored; a secret is a
 * blank password input that keeps the stored one when left blank (required only when missing),
 * and an optional setting emptied goes back to its default (sent as null).
 */
function configFields(
  type: PublishingType,
  prefix: string,
  current?: { config: Record<string, unknown>; missing: readonly string[] },
): Html[] {
  const connector = connectors[type];
  const schema = connector.configSchema as unknown as {
    properties: Record<string, FieldSchema>;
    required?: string[];
  };
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties).map(([key, field]) => {
    const id = `${prefix}-${key}`;
    const secret = connector.secretFields.includes(key);
    const kind =
      field.type === 'boolean'
        ? 'checkbox'
        : field.type === 'integer' || field.type === 'number'
          ? 'number'
          : secret
            ? 'password'
            : 'text';
    const editing = current !== undefined;
    const missing = current?.missing.includes(key) ?? false;
    const mandatory = kind !== 'checkbox' && (editing ? (secret ? missing : required.has(key)) : required.has(key));
    const dataType =
      kind === 'checkbox' ? 'boolean' : kind === 'number' ? 'number' : secret || !required.has(key) ? 'optional' : '';
    const stored = current && !secret ? (current.config[key] as string | number | boolean | undefined) : undefined;
    const value =
      kind === 'checkbox'
        ? stored === true
          ? html`checked`
          : ''
        : stored === undefined
          ? ''
          : html`value="${String(stored)}"`;
    const note =
      secret && editing
        ? missing
          ? ' (needed again)'
          : ' (leave blank to keep the stored one)'
        : required.has(key)
          ? ''
          : ' (optional)';
    return html`<label for="${id}">${key.replaceAll('_', ' ')}${note}</label>
      <input
        id="${id}"
        name="config.${key}"
        type="${kind}"
        ${value}
        ${dataType ? html`data-type="${dataType}"` : ''}
        ${editing && !secret && !required.has(key) && kind !== 'checkbox' ? html`data-empty="null"` : ''}
        ${mandatory ? html`required` : ''}
        ${field.maxLength ? html`maxlength="${field.maxLength}"` : ''}
        ${secret ? html`autocomplete="new-password"` : html`autocomplete="off"`}
        aria-describedby="${id}-help"
      />
      <span class="help" id="${id}-help">${field.description ?? ''}</span>`;
  });
}

function typeForm(type: PublishingType): Html {
  const connector = connectors[type];
  return html`<details class="card">
    <summary>Add a ${type} service</summary>
    <p class="help">${connector.description}</p>
    <form data-api="POST /services" data-done="reload">
      <input type="hidden" name="type" value="${type}" />
      <label for="${type}-name">Name</label>
      <input id="${type}-name" name="name" required maxlength="100" />
      ${configFields(type, type)}
      <button type="submit">Add ${type} service</button>
    </form>
  </details>`;
}

/** The Edit form of a service; for one that lacks its secrets, open, and it enables the service too. */
function editForm(service: Service & { type: PublishingType }): Html {
  const missing = service.missing_secrets ?? [];
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

function serviceCard(service: Service & { type: PublishingType }): Html {
  const missing = service.missing_secrets ?? [];
  const switchId = `enabled-${service.id}`;
  return html`<li class="card service" data-item data-service="${service.id}">
    <h3>${service.name} <span class="badge">${service.type}</span></h3>
    ${
      missing.length > 0
        ? html`<p class="warning">
            Needs its secrets again (${missing.join(', ')}): it was restored from an export without them, and stays
            disabled until you enter them below.
          </p>`
        : ''
    }
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
    <p class="meta">${service.status ? html`Status ${service.status} · ` : ''}${service.capabilities.join(', ')}</p>
    ${service.last_error ? html`<p class="error">Last error: ${service.last_error}</p>` : ''} ${editForm(service)}
    <div class="row">
      <button type="button" class="secondary small" data-test="${service.id}">
        Test<span class="visually-hidden"> ${service.name}</span>
      </button>
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
