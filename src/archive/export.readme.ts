// README.txt of an export: what each file holds and in which format, so the archive explains
// itself to a person or a program years from now without this server (docs/data-ownership.md).
import { EXPORT_FORMAT, EXPORT_VERSION, type ExportOwner } from './format.ts';

export function exportReadme({ owner, baseUrl, now }: { owner: ExportOwner; baseUrl: string; now: Date }): string {
  return `format: ${EXPORT_FORMAT}
version: ${EXPORT_VERSION}
username: ${owner.username}
server: ${baseUrl}
exported_at: ${now.toISOString()}

This archive holds everything the account above owned on a Waypost server when it was made:
its posts, media (with every original file), location history, places and corrections of
visits, views, settings, services and service groups. Text is UTF-8. Times are Unix epoch seconds (fractions allowed); coordinates are
WGS84 decimal degrees, exact (never rounded as the public sees them). The objects have the shape
the Waypost API gives their owner (see the server's /openapi.json), in format version ${EXPORT_VERSION}.

README.txt
  This file. Its first lines are "key: value" pairs; "format" and "version" name the format.

posts.jsonl
  JSON Lines (https://jsonlines.org): one post object per line, oldest first. Fields: id,
  username, text, scope ("public" or "private"), time, created_at, media_ids (ids of
  media.jsonl), location ({lat, lon} or null), source, deliveries (one per service the post
  was sent to: service_id, status, attempts, remote_url, remote_id, last_error, updated_at).

media.jsonl
  JSON Lines: one medium object per line, oldest first. Fields: id, username, scope, kind
  (image, video, audio, other), mime_type, size (bytes), sha256 (of the file), width, height,
  duration (seconds), time (taken), location, location_source ("exif" when the location came
  from the file, "history" when from the location history; absent in older archives), caption,
  file_name (the name the file was uploaded under, or null; absent in older archives),
  url and thumbnail_url (on the server that made the export), created_at, and file: the
  original's path in this archive.

media/<sha256>.<extension>
  The original files exactly as uploaded, metadata included, one per distinct content (two
  media with the same bytes share one file). The name is the SHA-256 of the bytes in hex.

missing-media.txt (only when needed)
  Files the server could not find on its disk when the export was made, one archive path per
  line; their media are still in media.jsonl.

locations.geojsonseq
  GeoJSON Text Sequences (RFC 8142): each record is the byte 0x1E (RS), one GeoJSON Feature
  (RFC 7946) and a line feed, oldest first. The geometry is a Point [lon, lat] or
  [lon, lat, alt]; the properties are the location object's other fields: id, username,
  scope, time, alt (metres), accuracy (metres), speed (m/s), heading (degrees), source,
  created_at.

places.json
  A JSON array of place objects, the places where the person stays: id, name (null until they
  named it), lat, lon, radius_m (visits within it belong to the place), city and country (the
  nearest town and the ISO 3166-1 alpha-2 code, found offline), created_at.

visit-corrections.json
  A JSON array of what the person said of their visits, oldest first: id, kind ("place": the
  stay from start_time to end_time was at the place place_id; "split": two stays, before and
  after start_time, which equals end_time; "merge": the stays from start_time to end_time were
  one; "not_a_stay": the stay from start_time to end_time was none), start_time, end_time,
  place_id (for "place", an id of places.json; else null), created_at. Visits and trips
  themselves are not in the archive: they are found again from the location history, and
  these corrections applied to them in order.

views.json
  A JSON array of view objects: id, username, name, description, kinds, filters (since_time,
  until_time, bbox, scope, sources, text), scope, created_at, updated_at.

settings.json
  A JSON object: default_scopes {posts, media, locations}, timezone,
  public_location_precision_m, display_name, bio.

services.json
  A JSON array of service objects: id, type, name, enabled, capabilities, config, status,
  last_error, created_at. Every secret (passwords, access tokens, signing secrets) is left
  out: its field in config holds "[redacted]". They must be entered again after a restore.

groups.json
  A JSON array of service group objects: id, name, service_ids, created_at.
`;
}
