// A batch of an import's points, column by column: what a reader's thread fills and the
// import stores (src/imports/reading.ts, imports.repo.ts).
import type { Fix } from '../locations/point.ts';

/** The columns of a batch, in this order. */
const COLUMNS = 7;

/** Points of one batch, column by column (null as NaN), in arrays reused batch after batch. */
export class PointBatch {
  length = 0;
  readonly time: Float64Array;
  readonly lat: Float64Array;
  readonly lon: Float64Array;
  readonly alt: Float64Array;
  readonly accuracy: Float64Array;
  readonly speed: Float64Array;
  readonly heading: Float64Array;

  /** A batch of room for `capacity` points. */
  constructor(capacity: number);
  /** The batch whose columns came from another thread, its first `length` points filled. */
  constructor(columns: readonly Float64Array[], length: number);
  constructor(capacityOrColumns: number | readonly Float64Array[], length = 0) {
    this.length = length;
    const columns =
      typeof capacityOrColumns === 'number'
        ? Array.from({ length: COLUMNS }, () => new Float64Array(capacityOrColumns))
        : capacityOrColumns;
    [this.time, this.lat, this.lon, this.alt, this.accuracy, this.speed, this.heading] = columns as [
      Float64Array,
      Float64Array,
      Float64Array,
      Float64Array,
      Float64Array,
      Float64Array,
      Float64Array,
    ];
  }

  /** The arrays, to hand the batch to another thread (their buffers are transferred, not copied). */
  get columns(): Float64Array[] {
    return [this.time, this.lat, this.lon, this.alt, this.accuracy, this.speed, this.heading];
  }

  push(p: Fix): void {
    const i = this.length++;
    this.time[i] = p.timeMs;
    this.lat[i] = p.lat;
    this.lon[i] = p.lon;
    this.alt[i] = p.alt ?? NaN;
    this.accuracy[i] = p.accuracy ?? NaN;
    this.speed[i] = p.speed ?? NaN;
    this.heading[i] = p.heading ?? NaN;
  }

  clear(): void {
    this.length = 0;
  }
}
