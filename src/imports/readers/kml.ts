// KML 2.2 (OGC) and Google's gx: extensions, as Google Earth, Google Maps' old Timeline and
// many trackers write it. Inside a Placemark:
// - a `Point` with the Placemark's `TimeStamp/when`: one point; with its `TimeSpan` instead (how
//   Google's Timeline export writes a place): a point at `begin`, and one at `end` when it differs;
// - a `gx:Track`: `when` and `gx:coord` ("lon lat alt") in pairs, in order;
// - a `LineString` with the Placemark's `TimeSpan` (`begin`, `end`): its coordinates get times
//   spread evenly from begin to end (the first at begin, the last at end); without a TimeSpan
//   they have no time and are counted as skipped.
// `coordinates` are "lon,lat[,alt]" tuples separated by white space.
import { parseTime, point, type ImportRecord, type Reader } from './reader.ts';
import { xmlRecords } from './xml.ts';

interface Placemark {
  when?: string;
  begin?: string;
  end?: string;
  points: string[];
  lines: string[];
  trackWhens: string[];
  trackCoords: string[];
}

function tuples(text: string): string[][] {
  return text
    .split(/\s+/)
    .filter(Boolean)
    .map((tuple) => tuple.split(','));
}

function emit(placemark: Placemark, where: string, out: ImportRecord[]): void {
  const begin = placemark.begin === undefined ? null : parseTime(placemark.begin);
  const end = placemark.end === undefined ? begin : parseTime(placemark.end);
  // A place of Google's Timeline export has a TimeSpan, no TimeStamp: there from begin to end.
  const times =
    placemark.when !== undefined
      ? [parseTime(placemark.when)]
      : begin !== null && end !== begin
        ? [begin, end]
        : [begin];
  for (const coordinates of placemark.points) {
    const [lon, lat, alt] = tuples(coordinates)[0] ?? [];
    for (const time of times) out.push(point(`${where}.Point`, time, lat, lon, { alt }));
  }
  placemark.trackCoords.forEach((coord, i) => {
    const [lon, lat, alt] = coord.trim().split(/\s+/);
    out.push(point(`${where}.Track[${i}]`, parseTime(placemark.trackWhens[i]), lat, lon, { alt }));
  });
  for (const coordinates of placemark.lines) {
    const list = tuples(coordinates);
    list.forEach(([lon, lat, alt], i) => {
      const at =
        begin === null || end === null
          ? null
          : list.length === 1
            ? begin
            : begin + ((end - begin) * i) / (list.length - 1);
      out.push(point(`${where}.LineString[${i}]`, at, lat, lon, { alt }));
    });
  }
}

export const kml: Reader = {
  read(input) {
    let current: Placemark | undefined;
    let index = 0;
    return xmlRecords(input, {
      open(name) {
        if (name === 'Placemark') current = { points: [], lines: [], trackWhens: [], trackCoords: [] };
      },
      close(name, content, out, path) {
        if (!current) return;
        const parent = path[path.length - 1];
        if (name === 'Placemark') {
          emit(current, `${input.name}: Placemark[${index++}]`, out);
          current = undefined;
        } else if (name === 'when' && parent === 'TimeStamp') current.when = content;
        else if (name === 'begin' && parent === 'TimeSpan') current.begin = content;
        else if (name === 'end' && parent === 'TimeSpan') current.end = content;
        else if (name === 'when' && parent === 'Track') current.trackWhens.push(content);
        else if (name === 'coord' && parent === 'Track') current.trackCoords.push(content);
        else if (name === 'coordinates' && parent === 'Point') current.points.push(content);
        else if (name === 'coordinates' && parent === 'LineString') current.lines.push(content);
      },
    });
  },
};
