// The registry: every service type and its connector. A new type is one file and one line.
import { bluesky } from './bluesky.ts';
import type { Connector } from './connector.ts';
import { feed } from './feed.ts';
import { gpslogger } from './gpslogger.ts';
import { mastodon } from './mastodon.ts';
import { withImport } from './mastodon.import.ts';
import { micropub } from './micropub.ts';
import { overland } from './overland.ts';
import { owntracks } from './owntracks.ts';
import { webhook } from './webhook.ts';
import type { ServiceType } from './types.ts';

export const connectors = {
  webhook,
  mastodon: withImport(mastodon),
  micropub,
  bluesky,
  feed,
  owntracks,
  overland,
  gpslogger,
} satisfies Record<ServiceType, Connector>;

export function isServiceType(type: string): type is ServiceType {
  return Object.hasOwn(connectors, type);
}
