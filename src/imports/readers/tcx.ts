// TCX, Garmin's Training Center XML (TrainingCenterDatabase v2): every `Trackpoint` of every
// lap of every activity, with `Time`, `Position` (`LatitudeDegrees`, `LongitudeDegrees`) and
// `AltitudeMeters`. Trackpoints without a position (heart rate only, a paused GPS) are
// counted as skipped.
import { parseTime, point, type Reader } from './reader.ts';
import { xmlRecords } from './xml.ts';

const FIELDS = new Set(['Time', 'LatitudeDegrees', 'LongitudeDegrees', 'AltitudeMeters']);

export const tcx: Reader = {
  read(input) {
    let current: Record<string, string> | undefined;
    let index = 0;
    return xmlRecords(input, {
      open(name) {
        if (name === 'Trackpoint') current = {};
      },
      close(name, content, out) {
        if (!current) return;
        if (name === 'Trackpoint') {
          const where = `${input.name}: Trackpoint[${index++}]`;
          if (current.LatitudeDegrees === undefined) out.push({ kind: 'skip' });
          else
            out.push(
              point(where, parseTime(current.Time), current.LatitudeDegrees, current.LongitudeDegrees, {
                alt: current.AltitudeMeters,
              }),
            );
          current = undefined;
        } else if (FIELDS.has(name)) current[name] = content;
      },
    });
  },
};
