// The forms of the Services page, built from the connector registry's config schemas: each
// field's label is its schema's `title` and its help the `description`, in plain words. Secrets
// are write-only (a blank password input keeps the stored one). A secret Waypost makes (a
// webhook's signing secret) is not asked for when adding: the answer shows it once
// (src/web/assets/services.js). A type that signs in on its server (Mastodon) is connected by
// signing in there, never by pasting a token.
import { html, type Html } from '../lib/html.ts';
import { connectors } from '../services/connectors/index.ts';
import { SERVICE_TYPES, type ServiceType } from '../services/connectors/types.ts';
import type { Service } from '../services/services.schemas.ts';

interface FieldSchema {
  title?: string;
  description?: string;
  maxLength?: number;
  type?: string;
  minimum?: number;
  maximum?: number;
  anyOf?: { const?: string }[];
}

export const PUBLISHING = SERVICE_TYPES.filter((type) => !connectors[type].ingest);
export type PublishingType = (typeof PUBLISHING)[number];

export const isPublishing = (type: string): type is PublishingType => (PUBLISHING as readonly string[]).includes(type);

/** What each type is called on the page. */
export const TYPE_LABEL: Record<ServiceType, string> = {
  webhook: 'Webhook',
  mastodon: 'Mastodon',
  micropub: 'Micropub site',
  bluesky: 'Bluesky',
  feed: 'Feed',
  owntracks: 'OwnTracks',
  overland: 'Overland',
  gpslogger: 'GPSLogger',
};

/** Where Bluesky's app passwords are made (its app's settings). */
export const BLUESKY_APP_PASSWORDS = 'https://bsky.app/settings/app-passwords';

/** The heading of each type's add form. */
const ADD_TEXT: Partial<Record<PublishingType, string>> = {
  webhook: 'Add a webhook',
  micropub: 'Add your Micropub site',
  bluesky: 'Add your Bluesky account',
  feed: 'Add a feed',
};

/** More help beside a type's form than its fields' own. */
const TYPE_HELP: Partial<Record<PublishingType, Html>> = {
  bluesky: html`<p class="help">
    Bluesky lets apps such as Waypost post for you with an <strong>app password</strong>: a separate password that can
    only post, and that you can revoke without changing your own. Make one in Bluesky:
    <a href="${BLUESKY_APP_PASSWORDS}" rel="noopener noreferrer">Settings, Privacy and security, App passwords</a>, name
    it “Waypost”, and paste it here. Never enter your account password.
  </p>`,
  webhook: html`<p class="help">
    Waypost makes a signing secret when you add it and shows it once, for you to put in the receiver.
  </p>`,
};

interface Current {
  config: Record<string, unknown>;
  missing: readonly string[];
}

function fieldKind(field: FieldSchema, secret: boolean): 'checkbox' | 'number' | 'select' | 'password' | 'text' {
  if (field.type === 'boolean') return 'checkbox';
  if (field.type === 'integer' || field.type === 'number') return 'number';
  if (field.anyOf) return 'select';
  return secret ? 'password' : 'text';
}

/**
 * One setting's input. Adding: empty, required ones required. Editing (`current` given): filled
 * with what is stored; a secret is a blank password input that keeps the stored one when left
 * blank (required only when missing), and an optional setting emptied goes back to its default
 * (sent as null).
 */
function configField(type: PublishingType, key: string, field: FieldSchema, prefix: string, current?: Current): Html {
  const connector = connectors[type];
  const required = new Set<string>(connector.configSchema.required ?? []);
  const id = `${prefix}-${key}`;
  const secret = connector.secretFields.includes(key);
  const kind = fieldKind(field, secret);
  const editing = current !== undefined;
  const made = connector.makeSecrets?.[key] !== undefined;
  const missing = current?.missing.includes(key) ?? false;
  const mandatory =
    kind !== 'checkbox' && (editing ? (secret ? missing && !made : required.has(key)) : required.has(key));
  const optional = secret || !required.has(key);
  const value = current && !secret ? current.config[key] : undefined;
  // A service's config holds text, numbers and switches only.
  const stored =
    typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : undefined;
  const label = field.title ?? key.replaceAll('_', ' ');
  const note =
    secret && editing
      ? missing
        ? made
          ? ' (needed again: the one your receiver has, or make a new one below)'
          : ' (needed again)'
        : ' (leave empty to keep the one you have)'
      : required.has(key) || kind === 'checkbox'
        ? ''
        : ' (optional)';
  const help = html`<span class="help" id="${id}-help">${field.description ?? ''}</span>`;
  if (kind === 'checkbox') {
    return html`<label class="inline" for="${id}"
        ><input
          id="${id}"
          name="config.${key}"
          type="checkbox"
          data-type="boolean"
          ${stored === true ? html`checked` : ''}
          aria-describedby="${id}-help"
        />
        ${label}</label
      >
      ${help}`;
  }
  if (kind === 'select') {
    const options = (field.anyOf ?? []).map((option) => String(option.const));
    return html`<label for="${id}">${label}</label>
      <select
        id="${id}"
        name="config.${key}"
        data-type="optional"
        ${editing ? html`data-empty="null"` : ''}
        aria-describedby="${id}-help"
      >
        <option value="">Your default</option>
        ${options.map(
          (value) =>
            html`<option value="${value}" ${stored === value ? html`selected` : ''}>
              ${value === 'public' ? 'Public' : value === 'private' ? 'Private: only you' : value}
            </option>`,
        )}
      </select>
      ${help}`;
  }
  const dataType = kind === 'number' ? 'number' : optional ? 'optional' : '';
  return html`<label for="${id}">${label}${note}</label>
    <input
      id="${id}"
      name="config.${key}"
      type="${kind}"
      ${stored === undefined ? '' : html`value="${String(stored)}"`}
      ${dataType ? html`data-type="${dataType}"` : ''}
      ${editing && !secret && !required.has(key) ? html`data-empty="null"` : ''}
      ${mandatory ? html`required` : ''}
      ${field.maxLength ? html`maxlength="${field.maxLength}"` : ''}
      ${field.minimum !== undefined ? html`min="${field.minimum}"` : ''}
      ${field.maximum !== undefined ? html`max="${field.maximum}"` : ''}
      ${secret ? html`autocomplete="new-password"` : html`autocomplete="off"`}
      aria-describedby="${id}-help"
    />
    ${help}`;
}

/**
 * The inputs of a type's settings. Left out: secrets Waypost makes, when adding (the answer shows
 * the one made), and the secrets of a type that signs in (they come from its server).
 */
export function configFields(type: PublishingType, prefix: string, current?: Current): Html[] {
  const connector = connectors[type];
  const properties = connector.configSchema.properties as unknown as Record<string, FieldSchema>;
  return Object.entries(properties)
    .filter(([key]) => {
      const secret = connector.secretFields.includes(key);
      if (secret && connector.connect) return false;
      return !(secret && current === undefined && connector.makeSecrets?.[key]);
    })
    .map(([key, field]) => configField(type, key, field, prefix, current));
}

/** The form that adds a service of a type whose settings are entered. */
function addForm(type: PublishingType): Html {
  const connector = connectors[type];
  const label = TYPE_LABEL[type];
  const shows = connector.makeSecrets ? html`data-done="event" data-shows-secret` : html`data-done="reload"`;
  return html`<details class="card add-service">
    <summary>${ADD_TEXT[type] ?? `Add ${label}`}</summary>
    <p class="help">${connector.description}</p>
    ${TYPE_HELP[type] ?? ''}
    <form data-api="POST /services" ${shows}>
      <input type="hidden" name="type" value="${type}" />
      <label for="${type}-name">Name</label>
      <input id="${type}-name" name="name" required maxlength="100" aria-describedby="${type}-name-help" />
      <span class="help" id="${type}-name-help">How it is listed here and when you write a post.</span>
      ${configFields(type, type)}
      <button type="submit">Add ${label}</button>
    </form>
  </details>`;
}

/** Connecting an account by signing in on its server (Mastodon). */
function connectForm(type: PublishingType): Html {
  const connector = connectors[type];
  const label = TYPE_LABEL[type];
  const properties = connector.configSchema.properties as unknown as Record<string, FieldSchema>;
  const extra = Object.entries(properties).filter(([key]) => key === 'import');
  return html`<details class="card add-service">
    <summary>Connect a ${label} account</summary>
    <p class="help">${connector.description}</p>
    <p class="help">
      You sign in on your server and allow Waypost to post for you; Waypost never sees your password. You can take the
      permission back on your server any time.
    </p>
    <form data-api="POST /services/connect" data-done="event" data-connect>
      <input type="hidden" name="type" value="${type}" />
      <label for="${type}-instance">Your server</label>
      <input
        id="${type}-instance"
        name="config.instance_url"
        required
        maxlength="2000"
        autocomplete="url"
        inputmode="url"
        placeholder="mastodon.social"
        aria-describedby="${type}-instance-help"
      />
      <span class="help" id="${type}-instance-help"
        >The server your account is on, like mastodon.social, or your full address, like @you@mastodon.social.</span
      >
      <label for="${type}-name">Name (optional)</label>
      <input id="${type}-name" name="name" maxlength="100" data-type="optional" aria-describedby="${type}-name-help" />
      <span class="help" id="${type}-name-help">How it is listed here; your account’s address when left empty.</span>
      ${extra.map(([key, field]) => configField(type, key, field, type))}
      <button type="submit">Connect with ${label}</button>
    </form>
  </details>`;
}

/** The add forms' order: the accounts most people have first. */
const FORM_ORDER: readonly string[] = ['mastodon', 'bluesky', 'webhook', 'micropub', 'feed'];
const rank = (type: string) => (FORM_ORDER.includes(type) ? FORM_ORDER.indexOf(type) : FORM_ORDER.length);

/** Every way to add a service, one card per type. */
export function addForms(): Html[] {
  return [...PUBLISHING]
    .sort((a, b) => rank(a) - rank(b))
    .map((type) => (connectors[type].connect ? connectForm(type) : addForm(type)));
}

/** A button that signs in again on the server of a service that was connected so (a new token). */
export function signInAgain(service: Service & { type: PublishingType }): Html {
  const label = TYPE_LABEL[service.type];
  const server = typeof service.config.instance_url === 'string' ? service.config.instance_url : '';
  return html`<form data-api="POST /services/connect" data-done="event" data-connect class="inline-form">
    <input type="hidden" name="type" value="${service.type}" />
    <input type="hidden" name="service_id" value="${service.id}" />
    <input type="hidden" name="config.instance_url" value="${server}" />
    <button type="submit" class="secondary small">
      Sign in again on ${label}<span class="visually-hidden"> for ${service.name}</span>
    </button>
  </form>`;
}
