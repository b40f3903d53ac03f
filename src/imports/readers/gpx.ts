// GPX 1.0 and 1.1 (topografix.com/GPX/1/1): track points (trk/trkseg/trkpt), route points
// (rte/rtept) and waypoints (wpt), each with `lat` and `lon` attributes and optional `ele` and
// `time`. GPX 1.0 puts `speed` (m/s) and `course` (degrees) in the point; 1.1 leaves them to
// extensions, where Garmin's TrackPointExtension v2 and others use the same local names. A point
// without a time cannot be placed in a history: it is counted as skipped.
import { parseTime, point, type Reader } from './reader.ts';
import { xmlRecords } from './xml.ts';

const POINTS = new Set(['trkpt', 'rtept', 'wpt']);
const FIELDS = new Set(['ele', 'time', 'speed', 'course']);

export const gpx: Reader = {
  read(input) {
    let current:
      { name: string; lat: string | undefined; lon: string | undefined; fields: Record<string, string> } | undefined;
    const counts: Record<string, number> = { trkpt: 0, rtept: 0, wpt: 0 };
    return xmlRecords(input, {
      open(name, attributes) {
        if (POINTS.has(name)) current = { name, lat: attributes.lat, lon: attributes.lon, fields: {} };
      },
      close(name, content, out) {
        if (!current) return;
        if (name === current.name) {
          const index = counts[name] ?? 0;
          counts[name] = index + 1;
          const { lat, lon, fields } = current;
          const where = `${input.name}: ${name}[${index}]`;
          if (fields.time === undefined) out.push({ kind: 'skip' });
          else
            out.push(
              point(where, parseTime(fields.time), lat, lon, {
                alt: fields.ele,
                speed: fields.speed,
                heading: fields.course,
              }),
            );
          current = undefined;
        } else if (FIELDS.has(name) && current.fields[name] === undefined) {
          current.fields[name] = content;
        }
      },
    });
  },
};
