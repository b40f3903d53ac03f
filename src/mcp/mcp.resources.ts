// The assistant's resources (docs/mcp.md "Resources"): a post, a medium and a day by URI,
// for a client to attach as context. Read through the same logic and rules as the tools.
import type { Auth } from '../core/caller.ts';
import { notFound } from '../core/errors.ts';
import { nowMs } from '../lib/time.ts';
import { getMedium } from '../media/media.logic.ts';
import { getPost } from '../posts/posts.logic.ts';
import { getSettings } from '../settings/settings.logic.ts';
import { dayOf, addDays } from '../web/time.ts';
import { rangeOf, timeline } from './mcp.timeline.ts';
import type { ToolDeps } from './mcp.tools.ts';

const JSON_TYPE = 'application/json';

export const RESOURCE_TEMPLATES = [
  {
    uriTemplate: 'waypost://posts/{id}',
    name: 'post',
    title: 'A post',
    description: 'One of the person’s posts, as get_post answers.',
    mimeType: JSON_TYPE,
  },
  {
    uriTemplate: 'waypost://media/{id}',
    name: 'medium',
    title: 'A photo, video or audio file',
    description: 'One medium with its caption, time, place and the links to its file and thumbnail.',
    mimeType: JSON_TYPE,
  },
  {
    uriTemplate: 'waypost://days/{date}',
    name: 'day',
    title: 'A day',
    description: 'One day (YYYY-MM-DD, the person’s time zone), as get_timeline answers.',
    mimeType: JSON_TYPE,
  },
];

/** The last seven days, today first: the days a person most often asks about. */
export async function listResources(deps: ToolDeps, auth: Auth) {
  const { timezone } = await getSettings(deps.db, auth.userId);
  const today = dayOf(nowMs(), timezone);
  return Array.from({ length: 7 }, (_, i) => {
    const day = addDays(today, -i);
    return { uri: `waypost://days/${day}`, name: `day-${day}`, title: `The day ${day}`, mimeType: JSON_TYPE };
  });
}

export async function readResource(deps: ToolDeps, auth: Auth, uri: string) {
  const match = /^waypost:\/\/(posts|media|days)\/([^/?#]{1,64})$/.exec(uri);
  if (!match) throw notFound('No such resource.');
  const [, kind, id] = match as unknown as [string, 'posts' | 'media' | 'days', string];
  const value =
    kind === 'posts'
      ? await getPost(deps.db, id, auth, deps.deliveriesOf)
      : kind === 'media'
        ? await getMedium(deps.db, deps.baseUrl, id, auth)
        : await timeline(deps, auth, await rangeOf(deps.db, auth, { date: id }));
  return { uri, mimeType: JSON_TYPE, text: JSON.stringify(value) };
}
