// What the media viewers read besides the medium (docs/web-public.md "The media viewer"): the
// media just before and after it, through the one scope rule: all of the owner's media in the
// owner's viewer, only public ones in the public viewer. And a person's public medium read as
// strangers get it (public precision, nothing in a privacy zone, the public copy's file facts).
import type { Db } from '../db/database.ts';
import { selectVisible } from '../items/items.repo.ts';
import { secondsToMs } from '../lib/time.ts';
import { publicPlacesFor } from '../privacy/places.ts';
import { fileViewOf, toMedium } from './media.logic.ts';
import { neighbourMedia } from './media.repo.ts';
import type { Medium } from './media.schemas.ts';

/** The ids of the media just newer and just older than `medium`, among the owner's (`all`) or their public ones. */
export async function neighbourIds(
  db: Db,
  owner: string,
  medium: Pick<Medium, 'time' | 'id'>,
  among: 'all' | 'public',
): Promise<{ newer: string | undefined; older: string | undefined }> {
  const audience = among === 'all' ? { viewer: owner } : { owner, scope: 'public' as const };
  const found = await neighbourMedia(db, owner, audience, { time: secondsToMs(medium.time), id: medium.id });
  return { newer: found.newer?.id, older: found.older?.id };
}

/** A person's public medium as strangers are shown it, or undefined (a private one and a missing one alike). */
export async function publicMediumOf(
  db: Db,
  baseUrl: string,
  owner: { id: string; username: string },
  id: string,
): Promise<Medium | undefined> {
  const row = await selectVisible(db, 'media', id, { owner: owner.id, scope: 'public' });
  if (!row) return undefined;
  const places = await publicPlacesFor(db, owner.id, [row]);
  return toMedium(row, owner.username, baseUrl, places, await fileViewOf(db, [row], false));
}
