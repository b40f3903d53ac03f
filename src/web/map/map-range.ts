// What the Map page shows of a date range (docs/maps.md "The Map page"): how many points it
// holds, the box they fill (the map is fitted to it), the days that have points, and the
// deletes of the range, of a day and of the day shown, each confirming how many points go.
// Read with `locationStats`, the function GET /locations/stats answers with, so the counts are
// the API's; the deletes are DELETE /locations?since_time&until_time through app.js's buttons.
import { html, type Html } from '../../lib/html.ts';
import type { Db } from '../../db/database.ts';
import { locationStats } from '../../history/stats.logic.ts';
import type { StatsGroup } from '../../history/history.schemas.ts';
import { deleteButton } from '../buttons.html.ts';
import { dayHeading } from '../time.ts';

/** A range's days in the list at most; a longer range is deleted whole, or narrowed. */
export const LISTED_DAYS = 62;

export interface RangeSummary {
  points: number;
  /** [west, south, east, north] of every point, or undefined when there is none. */
  bbox: [number, number, number, number] | undefined;
  /** The days with points, oldest first, when the range has at most LISTED_DAYS of them. */
  days: StatsGroup[] | undefined;
}

/** The box around every group's box; a group across the antimeridian widens it to the whole width. */
function union(groups: StatsGroup[]): [number, number, number, number] | undefined {
  if (groups.length === 0) return undefined;
  let [west, south, east, north] = [180, 90, -180, -90];
  for (const { bbox } of groups) {
    const [w, s, e, n] = bbox;
    west = Math.min(west, w > e ? -180 : w);
    east = Math.max(east, w > e ? 180 : e);
    south = Math.min(south, s);
    north = Math.max(north, n);
  }
  return [west, south, east, north];
}

/** Points and box of a range (ms, either end open), with its days when there are few enough. */
export async function summarize(
  db: Db,
  userId: string,
  range: { since?: number | undefined; until?: number | undefined },
): Promise<RangeSummary> {
  const times = {
    since_time: range.since === undefined ? undefined : range.since / 1000,
    until_time: range.until === undefined ? undefined : range.until / 1000,
  };
  // Whole history: by year (a few groups). A range: by day, unless it spans more than LISTED_DAYS.
  const bounded = range.since !== undefined && range.until !== undefined;
  const short = bounded && (range.until! - range.since!) / 86_400_000 <= LISTED_DAYS + 1;
  const stats = await locationStats(db, userId, { group_by: short ? 'day' : 'year', ...times });
  const points = stats.groups.reduce((sum, group) => sum + group.points, 0);
  return { points, bbox: union(stats.groups), days: short ? stats.groups : undefined };
}

const count = (n: number) => `${n.toLocaleString('en-GB')} point${n === 1 ? '' : 's'}`;

/** The query of DELETE /locations for an instant range (ms). */
const deletePath = (since: number, until: number) => `/locations?since_time=${since / 1000}&until_time=${until / 1000}`;

export interface RangeControls {
  summary: RangeSummary;
  /** The range asked for (ms) and its dates, as the form has them. */
  since: number;
  until: number;
  from: string;
  to: string;
  /** The page's own address, to come back to after a delete. */
  here: string;
  /** The Map page's address for one day of the range. */
  dayLink: (day: string) => string;
}

/** The range's delete button and its list of days, each with its own delete. */
export function rangeControls({ summary, since, until, from, to, here, dayLink }: RangeControls): Html {
  if (summary.points === 0) return html``;
  const span = from === to ? dayHeading(from) : `${dayHeading(from)} to ${dayHeading(to)}`;
  return html`<section class="map-range" aria-labelledby="range-heading">
    <h2 id="range-heading">${from === to ? dayHeading(from) : `${from} to ${to}`}</h2>
    <p>
      ${deleteButton({
        path: deletePath(since, until),
        confirm: `Delete all ${count(summary.points)} from ${span}? Public and private points go; this cannot be undone.`,
        text: `Delete these ${count(summary.points)}`,
        what: `from ${span}`,
        then: here,
        large: true,
      })}
    </p>
    ${
      summary.days && summary.days.length > 1
        ? html`<table class="range-days">
            <caption>
              Days with points
            </caption>
            <thead>
              <tr>
                <th scope="col">Day</th>
                <th scope="col">Points</th>
                <th scope="col"><span class="visually-hidden">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              ${summary.days.map(
                (day) =>
                  html`<tr data-day="${day.period}">
                    <th scope="row"><a href="${dayLink(day.period)}">${dayHeading(day.period)}</a></th>
                    <td>${day.points.toLocaleString('en-GB')}</td>
                    <td>
                      ${deleteButton({
                        path: deletePath(day.start * 1000, day.end * 1000),
                        confirm: `Delete the ${count(day.points)} of ${dayHeading(day.period)}? Public and private points go; this cannot be undone.`,
                        text: `Delete ${count(day.points)}`,
                        what: `of ${dayHeading(day.period)}`,
                        then: here,
                      })}
                    </td>
                  </tr>`,
              )}
            </tbody>
          </table>`
        : ''
    }
  </section>`;
}
