// Detecting again only around points that changed (docs/history.md "Visits and trips"). A
// visit depends on the trip into it (where it began) and the trip out of it (where it ended),
// and each trip on the visits at both its ends, so a change reaches one visit on each side of
// the visits it touches. The run starts a visit earlier than that, so the first visit it keeps
// (`first`) is found the way a run over everything finds it, with the way into it; and it reads
// on through the visit after the last one it keeps (`last`), so `last` is found whole, with the
// way out of it (the first point elsewhere says when it ended, and may be the next visit's).
import { WAKE_SPAN_MS } from './ends.ts';
import { WAKE_MAX_MS, type Detection, type Trip, type Visit } from './model.ts';

/** A stored visit's times: all a window needs. */
export interface Span {
  start: number;
  end: number;
}

export interface Redetection {
  /** Read the points with readFrom <= time <= readTo (-Infinity, Infinity: no bound that side). */
  readFrom: number;
  readTo: number;
  /** The stored visit before the change that the run finds again: update it, keeping its start. */
  first: Span | null;
  /** The stored visit after the change that the run finds again whole: update it. */
  last: Span | null;
}

/**
 * The window to detect again after points from `changedFrom` to `changedTo` were added, moved
 * or deleted. `before`: the stored visits starting at or before changedFrom, oldest first (the
 * latest three are used); `after`: the stored visits ending at or after changedTo, oldest first
 * (the first three are used).
 */
export function redetectionWindow(before: readonly Span[], after: readonly Span[]): Redetection {
  // before.at(-1) is in progress at the change, or the last before it: it may change. The one
  // before it may change only where it ends; the one before that is the run's way in.
  const first = before.at(-2) ?? null;
  const context = before.at(-3);
  // after[0] is in progress at the end of the change, or the first after it: it may change,
  // and the trip out of it. after[1] is found again from the way into it to the way out, which
  // reaches into after[2]; after[2] is a stay at all only once the points after it are read (a
  // phone asleep there tells it left by waking elsewhere, up to WAKE_MAX_MS later).
  const last = after[1] ?? null;
  const next = last ? after[2] : undefined;
  return {
    readFrom: context ? context.start : -Infinity,
    readTo: next ? next.end + WAKE_MAX_MS + WAKE_SPAN_MS : Infinity,
    first,
    last,
  };
}

export interface Stitch {
  /** The run's `window.first`, with its stored start; null when the window has none. */
  first: Visit | null;
  /** The visits to store between `first` and `last`, in time order. */
  visits: Visit[];
  /** The run's `window.last` (its start may have moved with the way into it); null when the window has none. */
  last: Visit | null;
  /**
   * The trips to store, from the end of `first` to the start of `last`. Their indexes count
   * `first` (when there is one) as 0, then `visits`, then `last`.
   */
  trips: Trip[];
}

const overlap = (a: Span, b: Span) => Math.min(a.end, b.end) - Math.max(a.start, b.start);

/** Index of the run's visit that overlaps `span` most, -1 if none does. */
function matching(visits: readonly Visit[], span: Span | null): number {
  let best = -1;
  if (!span) return best;
  visits.forEach((visit, i) => {
    if (overlap(visit, span) >= 0 && (best < 0 || overlap(visit, span) > overlap(visits[best]!, span))) best = i;
  });
  return best;
}

/**
 * What a run over `window` gives to store: update `window.first` with `first` (its id and
 * start stay) and `window.last` with `last` (its id stays); replace the stored visits strictly
 * between them with `visits`, and the stored trips that start after `window.first` began (or
 * all, without it) and before `window.last` ends with `trips`. Whatever lies beyond stays.
 */
export function stitch(window: Redetection, run: Detection): Stitch {
  const from = matching(run.visits, window.first);
  const found = matching(run.visits, window.last);
  const to = found < 0 ? run.visits.length : found;
  const after = from >= 0 ? run.visits[from]!.end : -Infinity;
  const before = to < run.visits.length ? run.visits[to]!.start : Infinity;
  const shift = (index: number | null) => (index == null ? null : index - Math.max(from, 0));
  return {
    first: from >= 0 ? { ...run.visits[from]!, start: window.first!.start } : null,
    visits: run.visits.slice(from + 1, to),
    last: found >= 0 ? run.visits[found]! : null,
    trips: run.trips
      .filter((trip) => trip.start >= after && trip.start < before)
      .map((trip) => ({ ...trip, fromIndex: shift(trip.fromIndex), toIndex: shift(trip.toIndex) })),
  };
}
