// A year in review (`/app/years/YYYY`, and `?month=MM` for one month; `/app/years` is the current
// year), read through the year in review of the API (GET /locations/summary, docs/api.md "Visits
// and trips") after bringing the detection up to date as its route does.
import { badRequest } from '../../core/errors.ts';
import { html, type Html } from '../../lib/html.ts';
import { nowMs } from '../../lib/time.ts';
import { getSettings } from '../../settings/settings.logic.ts';
import { locationSummary } from '../../visits/summary.logic.ts';
import { SummaryQuery, type Summary } from '../../visits/visits.schemas.ts';
import type { AppPage, PageContext } from '../page.ts';
import { dayHeading, dayOf } from '../time.ts';
import { distanceText, durationText, MODE_LABEL, placeTitle, placeWhere } from './days.html.ts';
import { refreshSpans } from './spans.ts';

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

// The years the API's summary takes (its query schema).
const YEARS = SummaryQuery.properties.year as unknown as { minimum: number; maximum: number };

function yearOf(raw: unknown): number {
  const year = typeof raw === 'string' && /^\d{4}$/.test(raw) ? Number(raw) : NaN;
  if (!(year >= YEARS.minimum && year <= YEARS.maximum)) {
    throw badRequest(`The year must be one from ${YEARS.minimum} to ${YEARS.maximum}.`, [
      { path: 'params/year', message: 'is not a year' },
    ]);
  }
  return year;
}

function monthOf(raw: unknown): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  const month = typeof raw === 'string' && /^\d{1,2}$/.test(raw) ? Number(raw) : NaN;
  if (!(month >= 1 && month <= 12)) {
    throw badRequest('The month must be one from 01 to 12.', [
      { path: 'querystring/month', message: 'is not a month' },
    ]);
  }
  return month;
}

const two = (month: number) => String(month).padStart(2, '0');

function months(year: number, current: number | undefined): Html {
  const link = (href: string, text: string, here: boolean) =>
    html`<li><a href="${href}" ${here ? html`aria-current="page"` : ''}>${text}</a></li>`;
  return html`<nav class="months" aria-label="Months of ${year}">
    <ul>
      ${link(`/app/years/${year}`, 'Whole year', current === undefined)}
      ${MONTHS.map((name, i) => link(`/app/years/${year}?month=${two(i + 1)}`, name.slice(0, 3), current === i + 1))}
    </ul>
  </nav>`;
}

function section(id: string, title: string, content: Html): Html {
  return html`<section class="card review-part" aria-labelledby="${id}">
    <h2 id="${id}">${title}</h2>
    ${content}
  </section>`;
}

function table(head: readonly string[], rows: readonly (readonly (string | Html)[])[], numeric: number): Html {
  return html`<table class="figures">
    <thead>
      <tr>
        ${head.map((cell, i) => html`<th scope="col" class="${i >= numeric ? 'num' : 'text'}">${cell}</th>`)}
      </tr>
    </thead>
    <tbody>
      ${rows.map(
        (row) =>
          html`<tr>
            ${row.map((cell, i) => html`<td class="${i >= numeric ? 'num' : 'text'}">${cell}</td>`)}
          </tr>`,
      )}
    </tbody>
  </table>`;
}

function review(summary: Summary, period: string): Html {
  const empty = summary.distance_m === 0 && summary.places.length === 0 && summary.countries.length === 0;
  if (empty) return html`<p class="empty">No stays or trips in ${period}.</p>`;
  const modes = Object.entries(summary.distance_by_mode).sort((a, b) => b[1] - a[1]);
  const share = (metres: number) =>
    summary.distance_m > 0 ? `${Math.round((100 * metres) / summary.distance_m)} %` : '–';
  const longest = summary.longest_trip;
  const longestDay = longest ? dayOf(longest.start_time * 1000, summary.timezone) : '';
  const days = (n: number) => `${n} ${n === 1 ? 'day' : 'days'}`;
  return html`<div class="review">
    ${section(
      'distance',
      'Distance',
      html`<p class="figure">${distanceText(summary.distance_m)}</p>
        ${
          modes.length > 0
            ? table(
                ['How', 'Distance', 'Share'],
                modes.map(([mode, metres]) => [
                  MODE_LABEL[mode as keyof typeof MODE_LABEL] ?? mode,
                  distanceText(metres),
                  share(metres),
                ]),
                1,
              )
            : ''
        }`,
    )}
    ${section(
      'longest',
      'Longest trip',
      longest
        ? html`<p>
            ${MODE_LABEL[longest.mode]}, ${distanceText(longest.distance_m)} in
            ${durationText((longest.end_time - longest.start_time) * 1000)}, on
            <a href="/app/days/${longestDay}">${dayHeading(longestDay)}</a>
          </p>`
        : html`<p class="empty">No trips.</p>`,
    )}
    ${section(
      'countries',
      'Countries',
      summary.countries.length > 0
        ? table(
            ['Country', 'Days there'],
            summary.countries.map((c) => [c.name, days(c.days)]),
            1,
          )
        : html`<p class="empty">None known.</p>`,
    )}
    ${section(
      'cities',
      'Towns and cities',
      summary.cities.length > 0
        ? table(
            ['Town', 'Country', 'Days there'],
            summary.cities.map((c) => [c.name, placeWhere({ city: null, country: c.country }), days(c.days)]),
            2,
          )
        : html`<p class="empty">None known.</p>`,
    )}
    ${section(
      'places',
      'Where the time went',
      table(
        ['Place', 'Stays', 'Time'],
        summary.places.map((p) => [placeTitle(p), String(p.visits), durationText(p.seconds * 1000)]),
        1,
      ),
    )}
    ${section(
      'new-places',
      'New places',
      summary.new_places.length > 0
        ? html`<ul class="plain-list new-places">
            ${summary.new_places.map((p) => html`<li><strong>${placeTitle(p)}</strong> <span class="meta">${placeWhere(p.name ? p : { city: null, country: p.country })}</span></li>`)}
          </ul>`
        : html`<p class="empty">No place was new.</p>`,
    )}
  </div>`;
}

async function yearView(ctx: PageContext, year: number) {
  const month = monthOf((ctx.request.query as Record<string, unknown>).month);
  await refreshSpans(ctx);
  const summary = await locationSummary(ctx.db, ctx.auth, month === undefined ? { year } : { year, month });
  const period = month === undefined ? String(year) : `${MONTHS[month - 1]} ${year}`;
  const body = html`<nav class="pager" aria-label="Other years">
      ${year > YEARS.minimum ? html`<a href="/app/years/${year - 1}" rel="prev">← ${year - 1}</a>` : ''}
      ${year < YEARS.maximum ? html`<a href="/app/years/${year + 1}" rel="next">${year + 1} →</a>` : ''}
    </nav>
    <h1>${period} in review</h1>
    <p class="meta">From your stays and trips, in ${summary.timezone}. <a href="/app/places">Your places</a></p>
    ${months(year, month)} ${review(summary, period)}`;
  return { title: `${period} in review`, body };
}

export const yearPage: AppPage = {
  path: '/app/years/:year',
  nav: '/app/years',
  title: 'Year in review',
  render: (ctx) => yearView(ctx, yearOf((ctx.request.params as Record<string, unknown>).year)),
};

/** The current year in the person's time zone. */
export const thisYearPage: AppPage = {
  path: '/app/years',
  title: 'Year in review',
  render: async (ctx) => {
    const { timezone } = await getSettings(ctx.db, ctx.auth.userId);
    return yearView(ctx, Number(dayOf(nowMs(), timezone).slice(0, 4)));
  },
};
