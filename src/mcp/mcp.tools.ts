// The assistant's tools (docs/mcp.md "Tools"): each a name, the permission that lists it, a
// description written for a model, a TypeBox input schema (sent as the tool's JSON Schema and
// checked before it runs) and a run function that calls the logic the REST routes call, with
// the caller's Auth, so the same scope and privacy rules answer.
import { Type, type Static, type TSchema } from 'typebox';
import type { Auth } from '../core/caller.ts';
import type { Permission } from '../core/permissions.ts';
import { addLocations } from '../locations/locations.logic.ts';
import { createPost, getPost, type PostDeliveries } from '../posts/posts.logic.ts';
import { TEXT_MAX } from '../posts/posts.schemas.ts';
import { ownSearcher, search, toSearchResult } from '../search/search.logic.ts';
import { listGroups, listServices } from '../services/services.logic.ts';
import { readSettingsObject } from '../settings/settings.api.ts';
import { locationSummary } from '../visits/summary.logic.ts';
import { instantOf, mediaPage, rangeOf, timeline, whereWasI, type ReadDeps } from './mcp.timeline.ts';
import { nowMs } from '../lib/time.ts';
import { getSettings } from '../settings/settings.logic.ts';

/** Everything a tool may need: the reads' dependencies and the writes'. */
export interface ToolDeps extends ReadDeps {
  deliveries: PostDeliveries;
  /** Called after a post with deliveries is committed (wakes an in-process worker). */
  onJobsQueued?: (() => void) | undefined;
}

/** A tool's answer: a sentence for the model and the data, sent as JSON text and as structured content. */
export interface ToolAnswer {
  summary: string;
  data: Record<string, unknown>;
}

export interface Tool<S extends TSchema = TSchema> {
  name: string;
  title: string;
  description: string;
  /** Listed and callable only when the grant holds it; none: every assistant has the tool. */
  permission?: Permission;
  /** Whether the tool only reads (MCP tool annotations). */
  readOnly: boolean;
  input: S;
  run(deps: ToolDeps, auth: Auth, args: Static<S>): Promise<ToolAnswer>;
}

// Each tool's run takes its own arguments' type; the list holds them by the common shape.
const define = <S extends TSchema>(tool: Tool<S>): Tool => tool;

const DAY = Type.String({
  pattern: '^\\d{4}-\\d{2}-\\d{2}$',
  description: 'A day, YYYY-MM-DD, in the person’s time zone (get_settings says which).',
});
const INSTANT = (what: string) =>
  Type.String({
    minLength: 10,
    maxLength: 40,
    description: `${what}: an ISO 8601 date-time ("2024-05-01T14:30:00+02:00", or without an offset for the person’s own time zone) or a date (its midnight).`,
  });
const PRIVACY =
  'Private items appear only when the person granted “get_private_scope”; otherwise only public ones, as strangers see them (rounded locations).';

export const TOOLS: Tool[] = [
  define({
    name: 'search',
    title: 'Search posts, media and places',
    description:
      'Full-text search over the person’s own posts (text), media (captions; file names of private media) and, ' +
      'with “get_private_scope”, their named places. All words must match, in any order; "quoted phrases" match in ' +
      'order; word* matches a prefix; case and accents do not matter, words are not stemmed (use run* for running). ' +
      'Results are newest first, each with its kind, time (ISO 8601), a snippet with the matched words in <mark> ' +
      `and the item itself. Use it for "what did I post about X" or "which photos of the lake". ${PRIVACY}`,
    readOnly: true,
    input: Type.Object(
      {
        query: Type.String({ minLength: 1, maxLength: 500, description: 'What to find, e.g. marathon or "new york".' }),
        kind: Type.Optional(
          Type.Union([Type.Literal('posts'), Type.Literal('media'), Type.Literal('places')], {
            description: 'Only this kind (places need get_private_scope).',
          }),
        ),
        start: Type.Optional(INSTANT('Only items from this time on')),
        end: Type.Optional(INSTANT('Only items before this time')),
        count: Type.Optional(
          Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'At most this many.' }),
        ),
      },
      { additionalProperties: false },
    ),
    async run(deps, auth, args) {
      const { timezone } = await getSettings(deps.db, auth.userId);
      const params = {
        q: args.query,
        count: args.count ?? 20,
        ...(args.start ? { since_time: instantOf(args.start, timezone, 'start') / 1000 } : {}),
        ...(args.end ? { until_time: instantOf(args.end, timezone, 'end') / 1000 } : {}),
      };
      const page = await search(deps.db, deps.baseUrl, deps.cursors, ownSearcher(auth, { kind: args.kind }), params);
      const results = page.items.map(toSearchResult);
      return {
        summary: `${results.length} result${results.length === 1 ? '' : 's'}${page.next ? ' (more exist: narrow the search or the time range)' : ''}.`,
        data: { results, more: page.next !== undefined },
      };
    },
  }),
  define({
    name: 'get_timeline',
    title: 'A day or a range of the person’s life',
    description:
      'Everything of one day (date) or a range (start and end, at most 366 days): posts and media, oldest first, ' +
      'and, with “get_private_scope”, the visits (stays at places, with the place’s name, town and country) and ' +
      `the trips between them (distance, mode). Up to 200 of each; “truncated” names kinds that had more. ${PRIVACY}`,
    readOnly: true,
    input: Type.Object(
      {
        date: Type.Optional(DAY),
        start: Type.Optional(INSTANT('Start of the range')),
        end: Type.Optional(INSTANT('End of the range (exclusive)')),
      },
      { additionalProperties: false },
    ),
    async run(deps, auth, args) {
      const day = await timeline(deps, auth, await rangeOf(deps.db, auth, args));
      const counts = [
        `${day.posts.length} posts`,
        `${day.media.length} media`,
        ...(day.visits ? [`${day.visits.length} visits`, `${day.trips!.length} trips`] : []),
      ];
      return { summary: `${counts.join(', ')} between ${day.start} and ${day.end}.`, data: { ...day } };
    },
  }),
  define({
    name: 'where_was_i',
    title: 'Where the person was at a time',
    description:
      'Where the person was at an instant: the visit (stay) that covers it, with the place’s name, town and ' +
      'country; or, when they were not staying anywhere, the recorded location point nearest in time (with how many ' +
      'seconds away it is) and its town and country. From the person’s own location history, exactly.',
    permission: 'get_private_scope',
    readOnly: true,
    input: Type.Object({ time: INSTANT('The instant') }, { additionalProperties: false }),
    async run(deps, auth, args) {
      const { timezone } = await getSettings(deps.db, auth.userId);
      const where = await whereWasI(deps, auth, instantOf(args.time, timezone, 'time'));
      const place = where.place ? [where.place.name, where.place.city, where.place.country].filter(Boolean) : [];
      const summary = where.visit
        ? `Staying at ${place.join(', ') || 'an unnamed place'}.`
        : where.nearest_point
          ? `No stay then; the nearest recorded point is ${where.nearest_point.seconds_away} s away${place.length ? `, in ${place.join(', ')}` : ''}.`
          : 'The location history has nothing for that time.';
      return { summary, data: { ...where } };
    },
  }),
  define({
    name: 'get_location_summary',
    title: 'A year or a month in review',
    description:
      'A year (or one month of it) in the person’s time zone: distance travelled by mode, days per country, towns ' +
      'and cities, the places where the most time was spent, the longest trip and the places first visited.',
    permission: 'get_private_scope',
    readOnly: true,
    input: Type.Object(
      {
        year: Type.Integer({ minimum: 1900, maximum: 5000 }),
        month: Type.Optional(Type.Integer({ minimum: 1, maximum: 12 })),
      },
      { additionalProperties: false },
    ),
    async run(deps, auth, args) {
      await deps.refresh(deps.db, auth.userId, nowMs());
      const summary = await locationSummary(deps.db, auth, args);
      return {
        summary: `${Math.round(summary.distance_m / 1000)} km, ${summary.countries.length} countries.`,
        data: { ...summary },
      };
    },
  }),
  define({
    name: 'list_media',
    title: 'List photos, videos and audio',
    description:
      'The person’s media, newest first (or oldest first within a range), each with its caption, time, place, size ' +
      `and links: url (the file) and thumbnail_url (a small WebP). Filter by kind and scope. ${PRIVACY} The links ` +
      'of private media need the same access token to fetch.',
    readOnly: true,
    input: Type.Object(
      {
        date: Type.Optional(DAY),
        start: Type.Optional(INSTANT('Start of the range')),
        end: Type.Optional(INSTANT('End of the range (exclusive)')),
        kind: Type.Optional(
          Type.Union([Type.Literal('image'), Type.Literal('video'), Type.Literal('audio'), Type.Literal('other')]),
        ),
        scope: Type.Optional(Type.Union([Type.Literal('public'), Type.Literal('private')])),
        count: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
      },
      { additionalProperties: false },
    ),
    async run(deps, auth, args) {
      const ranged = args.date !== undefined || args.start !== undefined || args.end !== undefined;
      const range = ranged ? await rangeOf(deps.db, auth, args) : undefined;
      const page = await mediaPage(deps, auth, { range, scope: args.scope, kind: args.kind, count: args.count ?? 50 });
      return { summary: `${page.media.length} media${page.truncated ? ' (more exist)' : ''}.`, data: { ...page } };
    },
  }),
  define({
    name: 'get_post',
    title: 'One post by id',
    description:
      'One of the person’s posts by its id, with its text, time, scope, media ids, location and, for each service ' +
      `it was sent to, the delivery’s status and remote URL. ${PRIVACY}`,
    readOnly: true,
    input: Type.Object(
      { id: Type.String({ minLength: 1, maxLength: 64, description: 'The post’s id.' }) },
      { additionalProperties: false },
    ),
    async run(deps, auth, args) {
      const post = await getPost(deps.db, args.id, auth, deps.deliveriesOf);
      return { summary: `Post of ${new Date(post.time * 1000).toISOString()}.`, data: { ...post } };
    },
  }),
  define({
    name: 'get_settings',
    title: 'The person’s settings',
    description:
      'The person’s settings: time zone (days and local times are in it), default scope of new posts, media and ' +
      'locations, public location precision, privacy zones, display name and bio.',
    permission: 'get_settings',
    readOnly: true,
    input: Type.Object({}, { additionalProperties: false }),
    async run(deps, auth) {
      const settings = await readSettingsObject(deps.db, auth.userId);
      return { summary: `Time zone ${settings.timezone}.`, data: { ...settings } };
    },
  }),
  define({
    name: 'create_post',
    title: 'Write a post (and send it out)',
    description:
      'Writes a post to the person’s Waypost exactly as the app does: stored in their collection and, for each ' +
      'service group named, delivered in the background to every service in it (Mastodon, Bluesky, webhooks…). ' +
      'With no groups it is only stored. Groups are named by id or by their exact name. The answer says which ' +
      'services will receive the post. Ask the person before posting: a public post is visible to everyone.',
    permission: 'create_post',
    readOnly: false,
    input: Type.Object(
      {
        text: Type.String({ minLength: 1, maxLength: TEXT_MAX, description: `1 to ${TEXT_MAX} characters.` }),
        scope: Type.Optional(
          Type.Union([Type.Literal('public'), Type.Literal('private')], {
            description: 'Default: the person’s default for posts.',
          }),
        ),
        groups: Type.Optional(
          Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
            maxItems: 100,
            uniqueItems: true,
            description: 'Service groups to deliver to, by id or name; none: store only.',
          }),
        ),
      },
      { additionalProperties: false },
    ),
    async run(deps, auth, args) {
      const groups = await groupIdsOf(deps, auth, args.groups ?? []);
      const post = await createPost(
        deps.db,
        { id: auth.userId, username: auth.username },
        { text: args.text, groups, ...(args.scope ? { scope: args.scope } : {}) },
        { deliveries: deps.deliveries },
      );
      if (post.deliveries?.length) deps.onJobsQueued?.();
      const services = new Map(
        (await listServices(deps.db, deps.baseUrl, auth.userId)).map((service) => [service.id, service]),
      );
      const receivers = (post.deliveries ?? []).map((delivery) => {
        const service = services.get(delivery.service_id);
        return { service_id: delivery.service_id, name: service?.name ?? null, type: service?.type ?? null };
      });
      const names = receivers.map((r) => `${r.name ?? r.service_id} (${r.type ?? 'service'})`);
      return {
        summary:
          `Stored as a ${post.scope} post (id ${post.id}). ` +
          (names.length ? `It will be delivered to: ${names.join(', ')}.` : 'It is delivered to no service.'),
        data: { post, delivered_to: receivers },
      };
    },
  }),
  define({
    name: 'add_location',
    title: 'Add a point to the location history',
    description:
      'Adds one point (latitude, longitude, time) to the person’s location history, as a tracker would; the same ' +
      'point twice is stored once. Its scope is the person’s default for locations (private unless they changed ' +
      'it) unless given. Visits and trips are detected from it later.',
    permission: 'write_locations',
    readOnly: false,
    input: Type.Object(
      {
        lat: Type.Number({ minimum: -90, maximum: 90 }),
        lon: Type.Number({ minimum: -180, maximum: 180 }),
        time: Type.Optional(INSTANT('When (default: now)')),
        accuracy: Type.Optional(Type.Number({ minimum: 0, maximum: 100_000, description: 'Metres.' })),
        scope: Type.Optional(Type.Union([Type.Literal('public'), Type.Literal('private')])),
      },
      { additionalProperties: false },
    ),
    async run(deps, auth, args) {
      const { timezone } = await getSettings(deps.db, auth.userId);
      const timeMs = args.time ? instantOf(args.time, timezone, 'time') : nowMs();
      const point = {
        time: timeMs / 1000,
        lat: args.lat,
        lon: args.lon,
        ...(args.accuracy !== undefined ? { accuracy: args.accuracy } : {}),
        ...(args.scope ? { scope: args.scope } : {}),
      };
      const result = await addLocations(deps.db, auth.userId, [point]);
      return {
        summary: result.stored ? 'Stored the point.' : 'That point was already stored.',
        data: { ...result, time: new Date(timeMs).toISOString() },
      };
    },
  }),
];

/** Group ids from ids or exact names (case-insensitive); unknown ones pass through for createPost to refuse. */
async function groupIdsOf(deps: ToolDeps, auth: Auth, given: readonly string[]): Promise<string[]> {
  if (given.length === 0) return [];
  const groups = await listGroups(deps.db, auth.userId);
  const ids = given.map(
    (g) =>
      groups.find((group) => group.id === g)?.id ??
      groups.find((group) => group.name.toLowerCase() === g.toLowerCase())?.id ??
      g,
  );
  return [...new Set(ids)];
}
