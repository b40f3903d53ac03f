// The registry: every service type and its connector. A new type is one file and one line.
// `feed`, `owntracks` and `overland` (API.md) import items; they come with the import side.
import type { Connector } from './connector.ts';
import { mastodon } from './mastodon.ts';
import { micropub } from './micropub.ts';
import { webhook } from './webhook.ts';

export const SERVICE_TYPES = ['webhook', 'mastodon', 'micropub'] as const;
export type ServiceType = (typeof SERVICE_TYPES)[number];

export const connectors = { webhook, mastodon, micropub } satisfies Record<ServiceType, Connector>;

export function isServiceType(type: string): type is ServiceType {
  return Object.hasOwn(connectors, type);
}
