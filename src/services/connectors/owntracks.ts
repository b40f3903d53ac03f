// owntracks: the OwnTracks app (iOS, Android) in HTTP mode. The app POSTs each message as JSON
// (owntracks.org/booklet/tech/http) and authenticates with HTTP Basic; the token is the
// password, the username may be anything.
//
// booklet/tech/json, `_type: "location"`: `lat`, `lon` (degrees), `tst` (Unix epoch seconds of
// the fix), `acc` (metres), `alt` (metres), `vel` (km/h), `cog` (degrees), and many more
// (`batt`, `tid`, `t`, `conn`, `m`, `SSID`, ...) that are not part of a point and are ignored.
// Every other `_type` (transition, waypoint(s), lwt, card, status, cmd, steps, encrypted, ...)
// is accepted and stores nothing; so is a zero-length body, which the booklet says the app
// posts when a friend is deleted.
//
// The app sends its messages in order and keeps resending one until the server answers 2xx,
// holding back every later message meanwhile. A location it can never get stored would stop
// the phone's whole history, so an unreadable point is left out with 200 (and listed in the
// service's `last_error`); only a body that is not JSON at all is refused (400).
import { Type } from 'typebox';
import { PointProblem, required, type PointInput } from '../../locations/point.ts';
import { isObject } from '../../lib/json.ts';
import type { Connector } from './connector.ts';
import { checkBatchSize, epochSeconds, NO_CONFIG, optional, parseJson, readPoints, type Ingest } from './tracker.ts';

const KMH_TO_MS = 1 / 3.6;

function location(message: unknown, path: string): PointInput | undefined {
  if (!isObject(message)) throw new PointProblem(path, 'must be an OwnTracks message (a JSON object)');
  if (message._type !== 'location') return undefined;
  const vel = optional(message.vel, 'speed', `${path}/vel`);
  return {
    timeMs: epochSeconds(message.tst, `${path}/tst`),
    lat: required(message.lat, 'lat', `${path}/lat`),
    lon: required(message.lon, 'lon', `${path}/lon`),
    alt: optional(message.alt, 'alt', `${path}/alt`),
    accuracy: optional(message.acc, 'accuracy', `${path}/acc`),
    speed: vel === null ? null : vel * KMH_TO_MS,
    heading: optional(message.cog, 'heading', `${path}/cog`),
    scope: undefined,
  };
}

const ingest: Ingest = {
  app: 'OwnTracks',
  parse({ body }) {
    if (body.trim() === '') return { points: [], skipped: [] };
    const json = parseJson(body, 'OwnTracks');
    const messages = Array.isArray(json) ? json : [json];
    checkBatchSize(messages.length, 'body');
    const at = (index: number) => (Array.isArray(json) ? `body/${index}` : 'body');
    return readPoints(messages, (message, index) => location(message, at(index)), false);
  },
  // booklet/tech/http: the app reads the answer as a JSON array of messages for it (friends'
  // locations and cards); Waypost has none to give.
  reply: () => [],
  replySchema: Type.Array(Type.Unknown(), { maxItems: 0, description: 'OwnTracks: `[]`.' }),
};

export const owntracks: Connector = {
  description:
    'Tracker: the OwnTracks app posts its locations to the ingest URL (HTTP mode, Basic auth with the token as password).',
  capabilities: ['import'],
  configSchema: NO_CONFIG,
  secretFields: [],
  ingest,
};
