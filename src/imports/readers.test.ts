// Each format's reader on small files written from the format's documentation, and detection
// telling them apart. The readers need no database; imports.test.ts drives them through HTTP.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeZip } from '../../test/zip.ts';
import { detectFile, detectHead } from './detect.ts';
import type { FormatName } from './readers/formats.ts';
import { readers } from './readers/index.ts';
import type { ImportRecord } from './readers/reader.ts';

const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d6a5c00000000049454e44ae426082',
  'hex',
);
const dir = mkdtempSync(join(tmpdir(), 'waypost-readers-'));

/** Every record a reader yields for `content`, fed in chunks of `chunk` bytes. */
async function read(format: FormatName, content: Buffer | string, name = 'file', chunk = 7): Promise<ImportRecord[]> {
  const bytes = Buffer.from(content);
  const path = join(dir, `${Math.random()}`);
  writeFileSync(path, bytes);
  async function* chunks() {
    for (let i = 0; i < bytes.length; i += chunk) yield bytes.subarray(i, i + chunk);
  }
  const out: ImportRecord[] = [];
  for await (const records of readers[format].read({ bytes: chunks(), name, path })) out.push(...records);
  return out;
}

/** Points as [ISO time, lat, lon], skips as 'skip', errors as their message. */
function brief(records: ImportRecord[]) {
  return records.map((r) =>
    r.kind === 'point'
      ? [new Date(r.timeMs).toISOString(), r.lat, r.lon]
      : r.kind === 'skip'
        ? 'skip'
        : `error: ${r.message}`,
  );
}

const point = (
  time: string,
  lat: number,
  lon: number,
  extras: Partial<Record<'alt' | 'accuracy' | 'speed' | 'heading', number>> = {},
) => ({
  kind: 'point',
  timeMs: Date.parse(time),
  lat,
  lon,
  alt: null,
  accuracy: null,
  speed: null,
  heading: null,
  ...extras,
});

describe('Google Semantic Location History', () => {
  const month = JSON.stringify({
    timelineObjects: [
      {
        placeVisit: {
          location: {
            latitudeE7: 481_372_000,
            longitudeE7: 115_756_000,
            placeId: 'ChIJ',
            address: 'Marienplatz',
            name: 'Home',
          },
          duration: { startTimestamp: '2022-03-01T08:00:00Z', endTimestamp: '2022-03-01T09:00:00.500Z' },
          placeConfidence: 'HIGH_CONFIDENCE',
        },
      },
      {
        activitySegment: {
          startLocation: { latitudeE7: 481_372_000, longitudeE7: 115_756_000 },
          endLocation: { latitudeE7: 481_500_000, longitudeE7: 116_000_000 },
          duration: { startTimestampMs: '1646125200500', endTimestampMs: '1646128800500' },
          distance: 3000,
          activityType: 'WALKING',
          waypointPath: {
            waypoints: [
              { latE7: 481_400_000, lngE7: 115_800_000 },
              { latE7: 481_450_000, lngE7: 115_900_000 },
            ],
          },
          simplifiedRawPath: {
            points: [{ latE7: 481_420_000, lngE7: 115_850_000, timestamp: '2022-03-01T09:30:00Z', accuracyMeters: 8 }],
          },
        },
      },
      { placeVisit: { duration: { startTimestamp: '2022-03-01T11:00:00Z' } } },
    ],
  });

  it('reads visits (arrival and departure), segment ends, waypoints spread over the segment, raw path points', async () => {
    expect(brief(await read('google-semantic', month))).toEqual([
      ['2022-03-01T08:00:00.000Z', 48.1372, 11.5756],
      ['2022-03-01T09:00:00.500Z', 48.1372, 11.5756],
      ['2022-03-01T09:00:00.500Z', 48.1372, 11.5756],
      ['2022-03-01T09:20:00.500Z', 48.14, 11.58],
      ['2022-03-01T09:40:00.500Z', 48.145, 11.59],
      ['2022-03-01T09:30:00.000Z', 48.142, 11.585],
      ['2022-03-01T10:00:00.500Z', 48.15, 11.6],
      'skip',
    ]);
  });
});

describe('Google Timeline (on the phone, 2024 on)', () => {
  it('reads Android semanticSegments (path, visit, activity) and rawSignals positions; ignores userLocationProfile', async () => {
    const file = JSON.stringify({
      semanticSegments: [
        {
          startTime: '2024-05-01T10:00:00.000+02:00',
          endTime: '2024-05-01T12:00:00.000+02:00',
          timelinePath: [
            { point: '48.1000000°, 11.5000000°', time: '2024-05-01T10:05:00.000+02:00' },
            { point: '-33.8°, 151.2°', time: '2024-05-01T10:10:00.000+02:00' },
          ],
        },
        {
          startTime: '2024-05-01T12:00:00.000+02:00',
          endTime: '2024-05-01T13:00:00.000+02:00',
          startTimeTimezoneUtcOffsetMinutes: 120,
          visit: {
            hierarchyLevel: 0,
            probability: 0.9,
            topCandidate: {
              placeId: 'x',
              semanticType: 'HOME',
              probability: 0.8,
              placeLocation: { latLng: '48.2°, 11.6°' },
            },
          },
        },
        {
          startTime: '2024-05-01T13:00:00.000+02:00',
          endTime: '2024-05-01T13:30:00.000+02:00',
          activity: {
            start: { latLng: '48.2°, 11.6°' },
            end: { latLng: '48.3°, 11.7°' },
            distanceMeters: 900,
            topCandidate: { type: 'WALKING', probability: 0.9 },
          },
        },
      ],
      rawSignals: [
        {
          position: {
            LatLng: '48.4°, 11.8°',
            accuracyMeters: 12,
            altitudeMeters: 530.5,
            source: 'GPS',
            timestamp: '2024-05-01T14:00:00.000+02:00',
            speedMetersPerSecond: 1.25,
          },
        },
        { wifiScan: { deliveryTime: '2024-05-01T14:00:00.000+02:00', devicesRecords: [] } },
        { activityRecord: { probableActivities: [], timestamp: '2024-05-01T14:00:00.000+02:00' } },
      ],
      userLocationProfile: { frequentPlaces: [{ placeId: 'x', placeLocation: '48.2°, 11.6°', label: 'HOME' }] },
    });
    const records = await read('google-timeline', file);
    expect(brief(records)).toEqual([
      ['2024-05-01T08:05:00.000Z', 48.1, 11.5],
      ['2024-05-01T08:10:00.000Z', -33.8, 151.2],
      ['2024-05-01T10:00:00.000Z', 48.2, 11.6],
      ['2024-05-01T11:00:00.000Z', 48.2, 11.6],
      ['2024-05-01T11:00:00.000Z', 48.2, 11.6],
      ['2024-05-01T11:30:00.000Z', 48.3, 11.7],
      ['2024-05-01T12:00:00.000Z', 48.4, 11.8],
    ]);
    expect(records[6]).toEqual(point('2024-05-01T12:00:00Z', 48.4, 11.8, { accuracy: 12, alt: 530.5, speed: 1.25 }));
  });

  it('reads the iOS array form: geo: strings, minutes offset from the start, values as strings', async () => {
    const file = JSON.stringify([
      {
        endTime: '2024-06-01T10:30:00.000+01:00',
        startTime: '2024-06-01T10:00:00.000+01:00',
        visit: {
          hierarchyLevel: '0',
          topCandidate: { probability: '0.9', semanticType: 'Unknown', placeID: 'x', placeLocation: 'geo:51.5,-0.12' },
          probability: '0.8',
        },
      },
      {
        endTime: '2024-06-01T11:00:00.000+01:00',
        startTime: '2024-06-01T10:30:00.000+01:00',
        activity: {
          probability: '0.9',
          end: 'geo:51.52,-0.1',
          topCandidate: { type: 'walking', probability: '0.8' },
          distanceMeters: '1500',
          start: 'geo:51.5,-0.12',
        },
      },
      {
        endTime: '2024-06-01T12:00:00.000+01:00',
        startTime: '2024-06-01T10:00:00.000+01:00',
        timelinePath: [
          { point: 'geo:51.51,-0.11', durationMinutesOffsetFromStartTime: '5' },
          { point: 'geo:51.515,-0.105', durationMinutesOffsetFromStartTime: '65' },
        ],
      },
    ]);
    expect(brief(await read('google-timeline', file))).toEqual([
      ['2024-06-01T09:00:00.000Z', 51.5, -0.12],
      ['2024-06-01T09:30:00.000Z', 51.5, -0.12],
      ['2024-06-01T09:30:00.000Z', 51.5, -0.12],
      ['2024-06-01T10:00:00.000Z', 51.52, -0.1],
      ['2024-06-01T09:05:00.000Z', 51.51, -0.11],
      ['2024-06-01T10:05:00.000Z', 51.515, -0.105],
    ]);
  });
});

describe('KML and KMZ', () => {
  const doc = `<?xml version="1.0" encoding="UTF-8"?>
<kml xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2">
<Document><Folder>
  <Placemark><name>Lunch</name><TimeStamp><when>2021-07-01T12:00:00Z</when></TimeStamp>
    <Point><coordinates>11.5,48.1,520</coordinates></Point></Placemark>
  <Placemark><name>No time</name><Point><coordinates>11.6,48.2</coordinates></Point></Placemark>
  <Placemark><gx:Track>
    <when>2021-07-01T13:00:00Z</when><when>2021-07-01T13:00:10Z</when>
    <gx:coord>11.7 48.3 530</gx:coord><gx:coord>11.71 48.31 531</gx:coord>
  </gx:Track></Placemark>
  <Placemark><TimeSpan><begin>2021-07-01T14:00:00Z</begin><end>2021-07-01T14:00:20Z</end></TimeSpan>
    <LineString><coordinates>
      11.8,48.4,0 11.81,48.41,0
      11.82,48.42,0
    </coordinates></LineString></Placemark>
  <Placemark><LineString><coordinates>1,2 3,4</coordinates></LineString></Placemark>
</Folder></Document></kml>`;
  const expected = [
    ['2021-07-01T12:00:00.000Z', 48.1, 11.5],
    'skip',
    ['2021-07-01T13:00:00.000Z', 48.3, 11.7],
    ['2021-07-01T13:00:10.000Z', 48.31, 11.71],
    ['2021-07-01T14:00:00.000Z', 48.4, 11.8],
    ['2021-07-01T14:00:10.000Z', 48.41, 11.81],
    ['2021-07-01T14:00:20.000Z', 48.42, 11.82],
    'skip',
    'skip',
  ];

  it('reads Point with TimeStamp, gx:Track pairs, LineString with TimeSpan (times spread); no time is skipped', async () => {
    expect(brief(await read('kml', doc))).toEqual(expected);
  });

  it('reads a KMZ: doc.kml in a zip, beside its images', async () => {
    const kmz = makeZip([
      { name: 'doc.kml', data: doc },
      { name: 'files/icon.png', data: PNG, stored: true },
    ]);
    const records = await read('kmz', kmz, 'trip.kmz');
    expect(brief(records.filter((r) => r.kind !== 'error'))).toEqual(expected);
    expect(records.filter((r) => r.kind === 'error')).toEqual([
      {
        kind: 'error',
        where: 'trip.kmz: files/icon.png',
        message: 'is a PNG file (image/png), not a location file; not read',
      },
    ]);
  });
});

describe('GeoJSON', () => {
  it('reads Point features with a time, and LineStrings with coordTimes or coordinateProperties.times', async () => {
    const file = JSON.stringify({
      type: 'FeatureCollection',
      features: [
        {
          type: 'Feature',
          geometry: { type: 'Point', coordinates: [2.35, 48.85, 35] },
          properties: { time: '2020-01-01T00:00:00Z', accuracy: 5, speed: 2 },
        },
        {
          type: 'Feature',
          geometry: { type: 'Point', coordinates: [2.36, 48.86] },
          properties: { timestamp: 1577836860 },
        },
        { type: 'Feature', geometry: { type: 'Point', coordinates: [2.37, 48.87] }, properties: {} },
        {
          type: 'Feature',
          geometry: {
            type: 'LineString',
            coordinates: [
              [2.4, 48.9],
              [2.41, 48.91, 40],
            ],
          },
          properties: { coordTimes: ['2020-01-01T00:02:00Z', '2020-01-01T00:03:00Z'] },
        },
        {
          type: 'Feature',
          geometry: { type: 'MultiLineString', coordinates: [[[2.5, 49]], [[2.51, 49.01]]] },
          properties: { coordinateProperties: { times: [['2020-01-01T00:04:00Z'], ['2020-01-01T00:05:00Z']] } },
        },
        { type: 'Feature', geometry: { type: 'LineString', coordinates: [[1, 1]] }, properties: null },
        {
          type: 'Feature',
          geometry: {
            type: 'Polygon',
            coordinates: [
              [
                [0, 0],
                [1, 0],
                [1, 1],
                [0, 0],
              ],
            ],
          },
          properties: {},
        },
      ],
    });
    const records = await read('geojson', file);
    expect(brief(records)).toEqual([
      ['2020-01-01T00:00:00.000Z', 48.85, 2.35],
      ['2020-01-01T00:01:00.000Z', 48.86, 2.36],
      'skip',
      ['2020-01-01T00:02:00.000Z', 48.9, 2.4],
      ['2020-01-01T00:03:00.000Z', 48.91, 2.41],
      ['2020-01-01T00:04:00.000Z', 49, 2.5],
      ['2020-01-01T00:05:00.000Z', 49.01, 2.51],
      'skip',
    ]);
    expect(records[0]).toEqual(point('2020-01-01T00:00:00Z', 48.85, 2.35, { alt: 35, accuracy: 5, speed: 2 }));
  });
});

describe('CSV', () => {
  it('reads a comma CSV with common column names (GPSLogger), quoted fields and CRLF', async () => {
    const file =
      'time,lat,lon,elevation,accuracy,bearing,speed,satellites,provider\r\n' +
      '2023-02-01T10:00:00.000Z,48.1,11.5,520.0,4.0,90.5,1.5,10,gps\r\n' +
      '"2023-02-01T10:00:05.000Z","48.2","11.6",,,,,,"gps"\r\n' +
      '2023-02-01T10:00:10Z,,11.6,,,,,,gps\r\n';
    const records = await read('csv', file);
    expect(brief(records)).toEqual([
      ['2023-02-01T10:00:00.000Z', 48.1, 11.5],
      ['2023-02-01T10:00:05.000Z', 48.2, 11.6],
      'skip',
    ]);
    expect(records[0]).toEqual(
      point('2023-02-01T10:00:00Z', 48.1, 11.5, { alt: 520, accuracy: 4, heading: 90.5, speed: 1.5 }),
    );
  });

  it('reads a semicolon CSV with decimal commas, epoch times and other names (Latitude, Lng, Timestamp)', async () => {
    const file = '\uFEFFTimestamp;Latitude;Lng;Altitude\n1675245600;48,1;11,5;500,5\n1675245660000;-48,25;-11,75;\n';
    expect(brief(await read('csv', file))).toEqual([
      ['2023-02-01T10:00:00.000Z', 48.1, 11.5],
      ['2023-02-01T10:01:00.000Z', -48.25, -11.75],
    ]);
  });

  it('keeps the rows before a quote left open at the end (a truncated file)', async () => {
    const file = 'time,latitude,longitude\n2023-02-01T10:00:00Z,1,2\n"2023-02-01T10:';
    expect(brief(await read('csv', file))).toEqual([
      ['2023-02-01T10:00:00.000Z', 1, 2],
      'error: the file ends early (truncated); the rows before were read',
    ]);
  });
});

describe('OwnTracks Recorder .rec', () => {
  it('reads location lines (vel in km/h), passes over other types, and notes a last line cut off', async () => {
    const file = [
      '2023-04-01T10:00:00Z\t*                 \t{"_type":"location","acc":10,"alt":520,"batt":80,"cog":45,"lat":48.1,"lon":11.5,"tid":"ph","tst":1680343200,"vel":36}',
      '2023-04-01T10:00:30Z\t*                 \t{"_type":"transition","event":"leave","desc":"Home","tst":1680343230,"lat":48.1,"lon":11.5}',
      '2023-04-01T10:01:00Z\t*                 \t{"_type":"lwt","tst":1680343260}',
      '2023-04-01T10:02:00Z\t*                 \t{"_type":"location","lat":48.2,"lon":11.6}',
      '2023-04-01T10:03:00Z\t*                 \t{"_type":"location","lat":48.3,"lo',
    ].join('\r\n');
    const records = await read('owntracks', file);
    expect(brief(records)).toEqual([
      ['2023-04-01T10:00:00.000Z', 48.1, 11.5],
      ['2023-04-01T10:02:00.000Z', 48.2, 11.6],
      'skip',
      'error: the file ends early (truncated); the lines before were read',
    ]);
    expect(records[0]).toEqual(
      point('2023-04-01T10:00:00Z', 48.1, 11.5, { accuracy: 10, alt: 520, heading: 45, speed: 10 }),
    );
  });
});

describe('TCX', () => {
  it('reads Trackpoints with Time, Position and AltitudeMeters; one without a position is skipped', async () => {
    const file = `<?xml version="1.0" encoding="UTF-8"?>
<TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2">
  <Activities><Activity Sport="Running"><Id>2019-09-01T07:00:00Z</Id>
    <Lap StartTime="2019-09-01T07:00:00Z"><TotalTimeSeconds>60</TotalTimeSeconds><Track>
      <Trackpoint><Time>2019-09-01T07:00:00Z</Time><Position><LatitudeDegrees>47.5</LatitudeDegrees><LongitudeDegrees>8.5</LongitudeDegrees></Position><AltitudeMeters>410.2</AltitudeMeters><HeartRateBpm><Value>120</Value></HeartRateBpm></Trackpoint>
      <Trackpoint><Time>2019-09-01T07:00:01Z</Time><HeartRateBpm><Value>121</Value></HeartRateBpm></Trackpoint>
      <Trackpoint><Time>2019-09-01T07:00:02Z</Time><Position><LatitudeDegrees>47.51</LatitudeDegrees><LongitudeDegrees>8.51</LongitudeDegrees></Position></Trackpoint>
    </Track></Lap></Activity></Activities>
</TrainingCenterDatabase>`;
    const records = await read('tcx', file);
    expect(brief(records)).toEqual([
      ['2019-09-01T07:00:00.000Z', 47.5, 8.5],
      'skip',
      ['2019-09-01T07:00:02.000Z', 47.51, 8.51],
    ]);
    expect(records[0]).toEqual(point('2019-09-01T07:00:00Z', 47.5, 8.5, { alt: 410.2 }));
  });
});

describe('GPX and Records.json, at their edges', () => {
  it('a GPX file that ends early keeps the points before', async () => {
    const file =
      '<gpx version="1.1"><trk><trkseg><trkpt lat="1" lon="2"><time>2020-01-01T00:00:00Z</time></trkpt><trkpt lat="3" lo';
    expect(brief(await read('gpx', file, 'cut.gpx', 5))).toEqual([
      ['2020-01-01T00:00:00.000Z', 1, 2],
      'error: the file ends early (truncated); the points before were read',
    ]);
  });

  it('malformed JSON in the middle keeps the records before and says so', async () => {
    const file =
      '{"locations": [{"latitudeE7": 10, "longitudeE7": 20, "timestamp": "2020-01-01T00:00:00Z"}, {"latitudeE7": ]}';
    const records = await read('google-records', file);
    expect(records).toHaveLength(2);
    expect(records[1]).toMatchObject({
      kind: 'error',
      message: expect.stringMatching(/^the JSON is malformed/) as unknown,
    });
  });
});

describe('a Google Takeout zip', () => {
  it('imports every location file inside, each counted, and lists the others', async () => {
    const zip = makeZip([
      { name: 'Takeout/archive_browser.html', data: '<!DOCTYPE html><html><body>Takeout</body></html>' },
      {
        name: 'Takeout/Location History/Records.json',
        data: JSON.stringify({ locations: [{ latitudeE7: 10, longitudeE7: 20, timestamp: '2020-01-01T00:00:00Z' }] }),
      },
      { name: 'Takeout/Location History/Settings.json', data: '{"createdTime": "2020-01-01T00:00:00Z"}' },
      {
        name: 'Takeout/Location History/Semantic Location History/2020/2020_JANUARY.json',
        data: JSON.stringify({
          timelineObjects: [
            {
              placeVisit: {
                location: { latitudeE7: 30, longitudeE7: 40 },
                duration: { startTimestamp: '2020-01-02T00:00:00Z', endTimestamp: '2020-01-02T00:00:00Z' },
              },
            },
          ],
        }),
      },
      { name: 'Takeout/inner.zip', data: makeZip([{ name: 'a.gpx', data: '<gpx/>' }]), stored: true },
      { name: 'Takeout/bomb.json', data: '{' + ' '.repeat(3 * 1024 * 1024) + '}' },
    ]);
    const records = await read('zip', zip, 'takeout.zip');
    expect(brief(records)).toEqual([
      'error: is XML whose root element is <html>, not a location file; not read',
      ['2020-01-01T00:00:00.000Z', 0.000001, 0.000002],
      'error: is a JSON object whose first field is "createdTime", not a location file; not read',
      ['2020-01-02T00:00:00.000Z', 0.000003, 0.000004],
      'error: is a zip inside the zip, not a location file; not read',
      'error: is compressed more than 200 to 1 (a zip bomb?); not read',
    ]);
    expect(records[0]).toMatchObject({ where: 'takeout.zip: Takeout/archive_browser.html' });
  });

  it('a zip that is damaged or cut short is an error, not a crash', async () => {
    const zip = makeZip([
      { name: 'a.gpx', data: '<gpx><wpt lat="1" lon="2"><time>2020-01-01T00:00:00Z</time></wpt></gpx>' },
    ]);
    expect(brief(await read('zip', zip.subarray(0, zip.length - 30), 'cut.zip'))).toEqual([
      expect.stringMatching(/^error: the zip archive is damaged/),
    ]);
  });
});

describe('detection', () => {
  // The expected format, or what the file is said to look like.
  const cases: [string, Buffer | string, string][] = [
    ['Records.json', '\uFEFF  {\n  "locations" : [', 'google-records'],
    ['Semantic Location History', '{"timelineObjects": [', 'google-semantic'],
    ['Timeline.json (Android)', '{ "semanticSegments": [{"startTime": "2024-01-01T00:00:00Z"', 'google-timeline'],
    ['Timeline.json, profile first', '{"userLocationProfile": {}}', 'google-timeline'],
    [
      'location-history.json (iOS)',
      '[{"endTime": "2024-01-01T00:00:00Z", "startTime": "2024-01-01T00:00:00Z", "visit": {',
      'google-timeline',
    ],
    ['GPX 1.0', '<?xml version="1.0"?>\n<!-- made by hand -->\n<gpx version="1.0">', 'gpx'],
    ['KML', '<?xml version="1.0"?><kml xmlns="http://www.opengis.net/kml/2.2">', 'kml'],
    ['TCX', '<TrainingCenterDatabase xmlns="x">', 'tcx'],
    ['GeoJSON, type later', '{"name": "trip", "crs": {}, "type": "FeatureCollection", "features": []}', 'geojson'],
    ['GeoJSON, features first', '{"features": [{"type": "Feature"', 'geojson'],
    ['CSV', 'Date Time;Latitude;Longitude\r\n', 'csv'],
    ['OwnTracks .rec', '2023-04-01T10:00:00Z\t*   \t{"_type":"location"}\n', 'owntracks'],
    ['a JSON array of numbers', '[1, 2, 3]', 'a JSON array'],
    ['CSV without coordinates', 'name,age\nAda,36\n', 'text in none of the formats'],
    ['a PDF', '%PDF-1.7\n', 'a PDF file (application/pdf)'],
  ];
  it.each(cases)('%s', async (_name, head, expected) => {
    const detection = await detectHead(Buffer.from(head));
    expect(detection.format ?? (detection as { seen: string }).seen).toBe(expected);
  });

  it('a zip is a location file when an entry is one; a KMZ when that entry is doc.kml', async () => {
    const detect = async (files: Parameters<typeof makeZip>[0], name = 'a.zip') => {
      const path = join(dir, `${Math.random()}.zip`);
      writeFileSync(path, makeZip(files));
      const detection = await detectFile(path, name);
      return detection.format ?? (detection as { seen: string }).seen;
    };
    expect(
      await detect([
        { name: 'x.txt', data: 'hello' },
        { name: 'Location History/Records.json', data: '{"locations": []}' },
      ]),
    ).toBe('zip');
    expect(await detect([{ name: 'doc.kml', data: '<kml/>' }], 'trip.kmz')).toBe('kmz');
    expect(
      await detect([
        { name: 'x.txt', data: 'hello' },
        { name: 'y.bin', data: Buffer.alloc(10) },
      ]),
    ).toBe('a zip archive whose 2 files are none of the formats');
    expect(await detect([])).toBe('a zip archive with no files');
  });
});
