// The names of the service types, with no imports: the schemas, the archive format and the
// browser's type-check (docs/conventions.md 20) read them without the connectors.
export const SERVICE_TYPES = [
  'webhook',
  'mastodon',
  'micropub',
  'bluesky',
  'feed',
  'owntracks',
  'overland',
  'gpslogger',
] as const;
export type ServiceType = (typeof SERVICE_TYPES)[number];
