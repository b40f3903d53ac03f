// Visits (stays) and trips from one person's points (docs/history.md "Visits and trips"). Pure:
// plain points in, plain visits and trips out; no database, no clock. Stream points through
// createDetector() batch by batch (memory stays flat however many), or detect() them at once.
import { createDetector } from './detector.ts';
import type { Detection, DetectorPoint } from './model.ts';

export * from './model.ts';
export { MODE_BANDS, MODE_MIN_DISTANCE_M } from './modes.ts';

export { createDetector, type Detector } from './detector.ts';
export { redetectionWindow, stitch, type Redetection, type Span, type Stitch } from './window.ts';

/** Visits and trips of points in time order, all at once (createDetector, pushed one by one). */
export function detect(points: Iterable<DetectorPoint>): Detection {
  const detector = createDetector();
  const visits = [];
  const trips = [];
  for (const point of points) {
    const done = detector.push(point);
    if (done) {
      visits.push(...done.visits);
      trips.push(...done.trips);
    }
  }
  const done = detector.flush();
  visits.push(...done.visits);
  trips.push(...done.trips);
  return { visits, trips };
}
