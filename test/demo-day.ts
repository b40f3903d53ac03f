// The demo's day for the screenshots and the pages' accessibility test (test/web.ts seedDemo): a
// tracker's day in Zürich two days ago in the demo's zone, home to a café, the office, lunch by
// the lake and home again, two places named, a photo whose file knows only when it was taken
// (the history places it) and a note written at the café.
import sharp from 'sharp';
import type { Database } from '../src/db/database.ts';
import { addDays, dayBounds, dayOf } from '../src/web/time.ts';
import { batches, offset, seeded, stay, walk, type Fix } from './days.ts';

const H = 3_600_000;
const home = { lat: 47.3723, lon: 8.5265 };
const cafe = offset(home, 900, 700);
const office = offset(cafe, 1800, 1600);
const lake = offset(office, -1400, 900);

export interface DemoDayDeps {
  database: Database;
  userId: string;
  timezone: string;
  call: <T>(method: 'POST' | 'GET', url: string, payload?: unknown) => Promise<T>;
  upload: (file: Buffer, caption: string) => Promise<{ id: string }>;
  photo: Buffer;
}

/** Sends the day and what goes with it; returns the day as `YYYY-MM-DD`. */
export async function seedDemoDay(deps: DemoDayDeps): Promise<string> {
  const day = addDays(dayOf(Date.now(), deps.timezone), -2);
  const start = dayBounds(day, deps.timezone)!.start;
  const at = (hours: number) => start + hours * H;
  const random = seeded(7);
  const fixes: Fix[] = [
    ...stay(home, at(0), at(7.6), random, 300_000),
    ...walk(home, cafe, at(7.6), at(7.8)),
    ...stay(cafe, at(7.8), at(8.5), random),
    ...walk(cafe, office, at(8.5), at(8.75), 15_000),
    ...stay(office, at(8.75), at(12.1), random),
    ...walk(office, lake, at(12.1), at(12.4)),
    ...stay(lake, at(12.4), at(13.1), random),
    ...walk(lake, office, at(13.1), at(13.4)),
    ...stay(office, at(13.4), at(17.5), random),
    ...walk(office, home, at(17.5), at(17.8), 15_000),
    ...stay(home, at(17.8), at(24), random, 300_000),
  ];
  for (const batch of batches(fixes)) await deps.call('POST', '/locations', batch);
  await deps.call('POST', '/places', { name: 'Home', lat: home.lat, lon: home.lon });
  await deps.call('POST', '/places', { name: 'Office', lat: office.lat, lon: office.lon, radius_m: 150 });
  // EXIF's wall clock, read in the person's zone (docs/history.md "Photos placed by the history").
  const photo = await sharp(deps.photo)
    .withExif({ IFD2: { DateTimeOriginal: `${day.replaceAll('-', ':')} 12:45:00` } })
    .jpeg()
    .toBuffer();
  await deps.upload(photo, 'Swans by the lake at lunch');
  // The API writes a post at the time it is sent; the demo's note is dated back to the café.
  const note = await deps.call<{ id: string }>('POST', '/posts', {
    text: 'Coffee first. The barista remembered my order.',
    groups: [],
    scope: 'private',
  });
  await deps.database.db
    .updateTable('posts')
    .set({ time: at(8.1) })
    .where('id', '=', note.id)
    .execute();
  return day;
}
