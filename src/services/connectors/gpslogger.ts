// gpslogger: GPSLogger for Android, "Log to custom URL". The person writes the URL, the method,
// the headers and the body in the app, from placeholders (%LAT, %LON, %TIME, %TIMESTAMP, %ALT,
// %ACC, %SPD, %DIR, ... and %ALL for all of them as a form body). Waypost reads one point per
// request from any of the app's usual shapes, by the placeholders' names:
//   - a form body (`Content-Type: application/x-www-form-urlencoded`), e.g. `%ALL`:
//     `lat=..&lon=..&alt=..&acc=..&dir=..&spd=..&timestamp=..&time=..&batt=..&...`;
//   - a JSON object body written from the placeholders (quoted or bare values);
//   - query parameters of the URL (`?lat=%LAT&lon=%LON&time=%TIME...`).
// Names: lat|latitude, lon|lng|long|longitude, time (ISO 8601) or timestamp (Unix seconds),
// alt|altitude, acc|accuracy, spd|speed|s (m/s) or spd_kph, dir|direction|bearing|heading.
// Empty values (a placeholder with nothing to say) are unknown; other names are ignored.
//
// The body is the person's own template, so a point that cannot be read is a setup mistake to
// show, not to hide: 400 naming the field, and the app's log shows it.
import { Type } from 'typebox';
import { badRequest } from '../../core/errors.ts';
import { required, type PointInput } from '../../locations/point.ts';
import { isObject } from '../../lib/json.ts';
import type { Connector } from './connector.ts';
import {
  epochSeconds,
  isoTime,
  NO_CONFIG,
  optional,
  parseJson,
  readPoints,
  type Ingest,
  type IngestRequest,
} from './tracker.ts';

const NAMES = {
  lat: ['lat', 'latitude'],
  lon: ['lon', 'lng', 'long', 'longitude'],
  time: ['time'],
  timestamp: ['timestamp'],
  alt: ['alt', 'altitude'],
  acc: ['acc', 'accuracy'],
  spd: ['spd', 'speed', 's'],
  spdKph: ['spd_kph'],
  dir: ['dir', 'direction', 'bearing', 'heading'],
} as const;

type Found = { value: unknown; path: string } | undefined;

/** The fields of the request: query parameters, then the body's over them. */
function fieldsOf({ body, contentType, query }: IngestRequest): Map<string, { value: unknown; path: string }> {
  const fields = new Map<string, { value: unknown; path: string }>();
  for (const [name, value] of Object.entries(query)) fields.set(name, { value, path: `querystring/${name}` });
  const text = body.trim();
  if (text === '') return fields;
  if (contentType.endsWith('json') || text.startsWith('{')) {
    const json = parseJson(text, 'GPSLogger');
    if (!isObject(json)) {
      throw badRequest('A GPSLogger JSON body is one object.', [{ path: 'body', message: 'must be a JSON object' }]);
    }
    for (const [name, value] of Object.entries(json)) fields.set(name, { value, path: `body/${name}` });
  } else {
    for (const [name, value] of new URLSearchParams(text)) fields.set(name, { value, path: `body/${name}` });
  }
  return fields;
}

/** A number from a JSON number or a placeholder's text; '' is unknown. */
function numeric(found: Found): Found {
  if (!found || typeof found.value !== 'string') return found;
  const text = found.value.trim();
  if (text === '') return undefined;
  const value = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text) ? Number(text) : found.value;
  return { value, path: found.path };
}

function point(fields: ReturnType<typeof fieldsOf>): PointInput {
  const find = (names: readonly string[]): Found => {
    for (const name of names) {
      const found = fields.get(name);
      if (found && found.value !== '' && found.value !== null) return found;
    }
    return undefined;
  };
  const number = (names: readonly string[]) => numeric(find(names));
  const lat = number(NAMES.lat);
  const lon = number(NAMES.lon);
  const time = find(NAMES.time);
  const timestamp = number(NAMES.timestamp);
  const timeMs = time ? isoTime(time.value, time.path) : epochSeconds(timestamp?.value, timestamp?.path ?? 'body/time');
  const spd = number(NAMES.spd);
  const kph = number(NAMES.spdKph);
  const speed = spd
    ? optional(spd.value, 'speed', spd.path)
    : kph && optional(typeof kph.value === 'number' ? kph.value / 3.6 : kph.value, 'speed', kph.path);
  const alt = number(NAMES.alt);
  const acc = number(NAMES.acc);
  const dir = number(NAMES.dir);
  return {
    timeMs,
    lat: required(lat?.value, 'lat', lat?.path ?? 'body/lat'),
    lon: required(lon?.value, 'lon', lon?.path ?? 'body/lon'),
    alt: alt ? optional(alt.value, 'alt', alt.path) : null,
    accuracy: acc ? optional(acc.value, 'accuracy', acc.path) : null,
    speed: speed ?? null,
    heading: dir ? optional(dir.value, 'heading', dir.path) : null,
    scope: undefined,
  };
}

const ingest: Ingest = {
  app: 'GPSLogger',
  parse(request) {
    const fields = fieldsOf(request);
    return readPoints([fields], (one) => point(one), true);
  },
  reply: ({ stored, duplicates }) => ({ stored, duplicates }),
  replySchema: Type.Object(
    { stored: Type.Integer(), duplicates: Type.Integer() },
    { description: 'GPSLogger (and anything else): how many points were stored, and how many were already there.' },
  ),
};

export const gpslogger: Connector = {
  description:
    'Tracker: GPSLogger for Android ("Log to custom URL") sends each point to the ingest URL (form, JSON or query parameters).',
  capabilities: ['import'],
  configSchema: NO_CONFIG,
  secretFields: [],
  ingest,
};
