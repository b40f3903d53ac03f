// What the person said of their visits, applied to what the detector found, every time it runs
// (docs/history.md "Corrections"). A correction names a stretch of time, not a row: the visit it
// was made on is found again as the detected visit that overlaps that stretch the most, so it
// survives a recomputation that moves the visit's edges by a few minutes.
import type { Mode } from './detect.ts';

export interface DayVisit {
  start: number;
  end: number;
  lat: number;
  lon: number;
  pointCount: number;
  confidence: number;
  /** Set by a `place` correction; otherwise the nearest place is found later. */
  placeId?: string;
}

export interface DayTrip {
  start: number;
  end: number;
  distanceM: number;
  mode: Mode;
}

export interface Timeline {
  visits: DayVisit[];
  trips: DayTrip[];
}

export type Correction =
  | { kind: 'place'; start: number; end: number; placeId: string }
  | { kind: 'split'; at: number }
  | { kind: 'merge'; start: number; end: number }
  | { kind: 'not_a_stay'; start: number; end: number };

const overlap = (a: { start: number; end: number }, b: { start: number; end: number }) =>
  Math.max(0, Math.min(a.end, b.end) - Math.max(a.start, b.start));

/** The visit this stretch was made on: at least half of one of the two is the other. */
function covers(range: { start: number; end: number }, visit: DayVisit): boolean {
  const shared = overlap(range, visit);
  const shorter = Math.min(range.end - range.start, visit.end - visit.start);
  return shorter <= 0 ? range.start >= visit.start && range.start <= visit.end : shared * 2 >= shorter;
}

/** A trip across where a visit was, from the trips on either side of it. */
function bridge(before: DayTrip | undefined, visit: DayVisit, after: DayTrip | undefined): DayTrip {
  const parts = [before, after].filter((trip): trip is DayTrip => trip !== undefined);
  const longest = parts.reduce<DayTrip | undefined>((a, b) => (a && a.distanceM >= b.distanceM ? a : b), undefined);
  return {
    start: before?.start ?? visit.start,
    end: after?.end ?? visit.end,
    distanceM: parts.reduce((sum, trip) => sum + trip.distanceM, 0),
    mode: longest?.mode ?? 'unknown',
  };
}

function notAStay(timeline: Timeline, range: { start: number; end: number }): Timeline {
  let { visits, trips } = timeline;
  for (const visit of visits.filter((v) => covers(range, v))) {
    const before = trips.find((trip) => trip.end === visit.start);
    const after = trips.find((trip) => trip.start === visit.end);
    trips = trips.filter((trip) => trip !== before && trip !== after);
    trips.push(bridge(before, visit, after));
    visits = visits.filter((v) => v !== visit);
  }
  return { visits, trips: trips.sort((a, b) => a.start - b.start) };
}

function split(timeline: Timeline, at: number): Timeline {
  const visits = timeline.visits.flatMap((visit) => {
    if (!(visit.start < at && at < visit.end)) return [visit];
    const share = (at - visit.start) / (visit.end - visit.start);
    const first = Math.max(1, Math.round(visit.pointCount * share));
    return [
      { ...visit, end: at, pointCount: first },
      { ...visit, start: at, pointCount: Math.max(1, visit.pointCount - first) },
    ];
  });
  return { visits, trips: timeline.trips };
}

function merge(timeline: Timeline, range: { start: number; end: number }): Timeline {
  const chosen = timeline.visits.filter(
    (visit) => covers(range, visit) || (visit.start >= range.start && visit.end <= range.end),
  );
  if (chosen.length < 2) return timeline;
  const first = chosen[0]!;
  const last = chosen.at(-1)!;
  const biggest = chosen.reduce((a, b) => (b.pointCount > a.pointCount ? b : a));
  const merged: DayVisit = {
    ...biggest,
    start: first.start,
    end: last.end,
    pointCount: chosen.reduce((sum, visit) => sum + visit.pointCount, 0),
    confidence: Math.min(...chosen.map((visit) => visit.confidence)),
  };
  const inside = (item: { start: number; end: number }) => item.start >= first.start && item.end <= last.end;
  return {
    visits: [...timeline.visits.filter((visit) => !chosen.includes(visit)), merged].sort((a, b) => a.start - b.start),
    trips: timeline.trips.filter((trip) => !inside(trip)),
  };
}

/** The corrections, oldest first, applied one after the other. */
export function applyCorrections(detected: Timeline, corrections: readonly Correction[]): Timeline {
  let timeline: Timeline = { visits: [...detected.visits], trips: [...detected.trips] };
  for (const correction of corrections) {
    switch (correction.kind) {
      case 'place':
        timeline = {
          ...timeline,
          visits: timeline.visits.map((visit) =>
            covers(correction, visit) ? { ...visit, placeId: correction.placeId } : visit,
          ),
        };
        break;
      case 'split':
        timeline = split(timeline, correction.at);
        break;
      case 'merge':
        timeline = merge(timeline, correction);
        break;
      case 'not_a_stay':
        timeline = notAStay(timeline, correction);
        break;
    }
  }
  return timeline;
}
