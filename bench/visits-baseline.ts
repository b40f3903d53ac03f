// The baseline visits are scored beside (bench/visits-accuracy.ts): the stay-point algorithm of
// Li et al., "Mining user similarity based on location history" (ACM SIGSPATIAL GIS 2008),
// as the paper writes it, on the raw points: from each point, the first later point farther
// than D ends the scan; if that took longer than T, the points before it are a stay point
// (arrival at the first, leaving at the time of the point that ended the scan, the mean of the
// coordinates as its place) and the next scan starts at that point, otherwise at the next one.
// Same D and T as the detector (100 m, 5 minutes). Trips are the movement between two stay
// points: the sum of every step (docs/history.md "Rules for distance and movement", what day
// tracks add up) and a mode from the average speed.
import { distanceM, segmentM } from '../src/lib/distance.ts';
import { STAY_MIN_MS, STAY_RADIUS_M, type DetectorPoint, type Mode } from '../src/visits/detect.ts';

export interface BaselineVisit {
  start: number;
  end: number;
  lat: number;
  lon: number;
}

export interface BaselineTrip {
  start: number;
  end: number;
  distanceM: number;
  mode: Mode;
  fromIndex: number;
  toIndex: number;
}

function stayPoints(points: DetectorPoint[]): { visit: BaselineVisit; first: number; next: number }[] {
  const found = [];
  let i = 0;
  while (i < points.length) {
    let j = i + 1;
    let token = false;
    while (j < points.length) {
      if (distanceM(points[i]!, points[j]!) > STAY_RADIUS_M) {
        if (points[j]!.time - points[i]!.time > STAY_MIN_MS) {
          let lat = 0;
          let lon = 0;
          for (let k = i; k < j; k += 1) {
            lat += points[k]!.lat;
            lon += points[k]!.lon;
          }
          const visit = { start: points[i]!.time, end: points[j]!.time, lat: lat / (j - i), lon: lon / (j - i) };
          found.push({ visit, first: i, next: j });
          i = j;
          token = true;
        }
        break;
      }
      j += 1;
    }
    if (!token) i += 1;
  }
  return found;
}

/** Average speed bands: walking, cycling, driving, train, flight. */
function modeOf(metres: number, ms: number): Mode {
  const speed = ms > 0 ? metres / (ms / 1000) : 0;
  return speed < 2 ? 'walking' : speed < 7 ? 'cycling' : speed < 40 ? 'driving' : speed < 100 ? 'train' : 'flight';
}

export function baseline(points: DetectorPoint[]): { visits: BaselineVisit[]; trips: BaselineTrip[] } {
  const stays = stayPoints(points);
  const trips: BaselineTrip[] = [];
  for (let s = 1; s < stays.length; s += 1) {
    const from = stays[s - 1]!;
    const to = stays[s]!;
    let metres = 0;
    for (let k = from.next; k <= to.first; k += 1) metres += segmentM(points[k - 1]!, points[k]!);
    const start = from.visit.end;
    const end = to.visit.start;
    trips.push({ start, end, distanceM: metres, mode: modeOf(metres, end - start), fromIndex: s - 1, toIndex: s });
  }
  return { visits: stays.map((s) => s.visit), trips };
}
