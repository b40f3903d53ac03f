// Bounding boxes (src/lib/box.ts, docs/privacy.md): across the antimeridian, all 360
// degrees, touching a pole, a single point; on the owner's and the public collections and on
// private and public views, each returning exactly what it contains.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestUser, type TestApp } from '../../test/helpers.ts';
import { insertItems } from '../../test/items.ts';
import { tokenFor } from '../../test/tokens.ts';
import { updateSettings } from '../settings/settings.logic.ts';
import { selectPage } from '../items/items.repo.ts';
import { boxContains, readBox, type Box } from './box.ts';
import { servedPlaceFilter, widenBox } from '../privacy/served-box.ts';
import { placeFilter } from '../privacy/served-box.repo.ts';
import { roundPoint } from '../privacy/precision.ts';

const PLACES = {
  eastOfDateLine: { lat: 45, lon: 179.95 },
  westOfDateLine: { lat: 45, lon: -179.95 },
  greenwich: { lat: 45, lon: 0.3 },
  northPole: { lat: 90, lon: 10 },
  southPole: { lat: -90, lon: -50 },
  nearNorthPole: { lat: 89.5, lon: 100 },
  lonely: { lat: 10.5, lon: 20.25 },
  onDateLine: { lat: 30, lon: 180 },
};
type Name = keyof typeof PLACES;
const NAMES = Object.keys(PLACES) as Name[];

let t: TestApp;
let reader: string;
/** The owner's token given no permission: it reads the owner's public collection as strangers do. */
let appToken: string;
let viewer: string;
/** Each place twice: a public point and a private one, by id. */
const named = new Map<string, { name: Name; scope: 'public' | 'private' }>();
const publicIds = new Map<Name, string>();

beforeAll(async () => {
  t = await buildTestApp();
  const owner = await createTestUser(t.database, { username: 'globe' });
  await updateSettings(t.database.db, owner.id, { publicLocationPrecisionM: 1000 });
  reader = await tokenFor(t, owner, ['get_private_scope']);
  appToken = await tokenFor(t, owner, []);
  viewer = await tokenFor(t, owner, ['get_views', 'manage_views', 'get_private_scope']);
  for (const [index, name] of NAMES.entries()) {
    for (const scope of ['public', 'private'] as const) {
      const time = (index + 1) * 1000 + (scope === 'public' ? 0 : 500);
      const [id] = await insertItems(t.database, 'locations', owner.id, [{ scope, time, ...PLACES[name] }]);
      named.set(id!, { name, scope });
      if (scope === 'public') publicIds.set(name, id!);
    }
  }
});
afterAll(() => t.close());

const get = (url: string, token?: string) =>
  t.app.inject({ method: 'GET', url, headers: token ? { authorization: `Bearer ${token}` } : {} });

/** The names of the places in an answer, each checked to be of the expected scope. */
function namesOf(ids: string[], scope: 'public' | 'private'): Name[] {
  return ids
    .map((id) => named.get(id)!)
    .map((place) => {
      expect(place.scope).toBe(scope);
      return place.name;
    })
    .sort();
}

/** Every way a box is asked for, with the places each answers with. */
async function everywhere(bbox: string): Promise<Record<string, Name[]>> {
  const ids = async (url: string, token?: string) => {
    const response = await get(url, token);
    expect(response.statusCode, url).toBe(200);
    return response.json<{ id: string }[]>().map((point) => point.id);
  };
  const viewIds = async (scope: 'public' | 'private') => {
    const filters = { bbox: bbox.split(',').map(Number), ...(scope === 'private' ? { scope } : {}) };
    const created = await t.app.inject({
      method: 'POST',
      url: '/views',
      headers: { authorization: `Bearer ${viewer}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ name: bbox, kinds: ['locations'], filters, scope }),
    });
    expect(created.statusCode).toBe(201);
    const read = await get(`/views/${created.json<{ id: string }>().id}?count=1000`, viewer);
    return read.json<{ items: { item: { id: string } }[] }>().items.map((entry) => entry.item.id);
  };
  return {
    owner: namesOf(await ids(`/locations/private?bbox=${bbox}&count=1000`, reader), 'private'),
    public: namesOf(await ids(`/locations/public/globe?bbox=${bbox}&count=1000`), 'public'),
    ownPublic: namesOf(await ids(`/locations/public?bbox=${bbox}&count=1000`, appToken), 'public'),
    privateView: namesOf(await viewIds('private'), 'private'),
    publicView: namesOf(await viewIds('public'), 'public'),
  };
}

/** The same places on every side, private (exact) and public (rounded to 1000 m). */
const same = (...names: Name[]) => {
  const sorted = [...names].sort();
  return { owner: sorted, public: sorted, ownPublic: sorted, privateView: sorted, publicView: sorted };
};

describe('boxes return what they contain', () => {
  it('all 360 degrees of longitude, at mid-latitudes too', async () => {
    expect(await everywhere('-180,40,180,50')).toEqual(same('eastOfDateLine', 'westOfDateLine', 'greenwich'));
  });

  it('across the antimeridian (min_lon > max_lon)', async () => {
    expect(await everywhere('179,40,-179,50')).toEqual(same('eastOfDateLine', 'westOfDateLine'));
    expect(await everywhere('179.9,44.9,-179.9,45.1')).toEqual(same('eastOfDateLine', 'westOfDateLine'));
    expect(await everywhere('-180,40,-179,50')).toEqual(same('westOfDateLine'));
  });

  it('touching a pole: the pole is on every meridian', async () => {
    expect(await everywhere('90,89,110,90')).toEqual(same('northPole', 'nearNorthPole'));
    expect(await everywhere('-10,-90,10,-89')).toEqual(same('southPole'));
  });

  it('the whole world', async () => {
    expect(await everywhere('-180,-90,180,90')).toEqual(same(...NAMES));
  });

  it('a single point: the exact one for the owner, the published one for everyone', async () => {
    const { lat, lon } = PLACES.lonely;
    const exact = await everywhere(`${lon},${lat},${lon},${lat}`);
    expect(exact).toEqual({ owner: ['lonely'], public: [], ownPublic: [], privateView: ['lonely'], publicView: [] });
    const published = (await get(`/locations/id/${publicIds.get('lonely')}`)).json<{ lat: number; lon: number }>();
    expect(published).toMatchObject(roundPoint(lat, lon, 1000));
    // The owner reading with get_private_scope judges their public points exactly.
    const ownExact = async (box: string) =>
      (await get(`/locations/public?bbox=${box}&count=1000`, reader)).json<{ id: string }[]>().map((p) => p.id);
    expect(await ownExact(`${lon},${lat},${lon},${lat}`)).toEqual([publicIds.get('lonely')]);
    expect(await ownExact(`${published.lon},${published.lat},${published.lon},${published.lat}`)).toEqual([]);
    const atPublished = await everywhere(`${published.lon},${published.lat},${published.lon},${published.lat}`);
    expect(atPublished).toEqual({
      owner: [],
      public: ['lonely'],
      ownPublic: ['lonely'],
      privateView: [],
      publicView: ['lonely'],
    });
  });

  it('-180 and 180 are one meridian', async () => {
    // The exact point at 180 is on it; its public point, rounded to the grid, is not.
    const onIt = { owner: ['onDateLine'], public: [], ownPublic: [], privateView: ['onDateLine'], publicView: [] };
    expect(await everywhere('-180,20,-170,40')).toEqual(onIt);
    expect(await everywhere('180,20,-180,40')).toEqual(onIt);
    expect(await everywhere('170,20,180,40')).toEqual({
      ...onIt,
      public: ['onDateLine'],
      ownPublic: ['onDateLine'],
      publicView: ['onDateLine'],
    });
  });
});

describe('the bbox grammar', () => {
  it('four plain decimal numbers in range, min_lat <= max_lat; anything else is 400 naming bbox', async () => {
    for (const good of ['0,0,0,0', '-180,-90,180,90', '180,0,-180,0', '.5,1.,-0.25,2', '-0,0,0,0']) {
      expect((await get(`/locations/public/globe?bbox=${good}`)).statusCode, good).toBe(200);
    }
    const bad = [
      '1,2,3',
      '1,2,3,4,',
      ',,,',
      '0,10,1,5',
      '0,0,200,1',
      '-180.5,0,0,1',
      '0,-91,0,0',
      'a,b,c,d',
      '1e1,0,20,5',
      '0x10,0,20,5',
      'NaN,0,1,1',
      'Infinity,0,1,1',
      '%201,2,3,4',
      '1,2,3,4%20',
      '+1,2,3,4',
      '1;2;3;4',
    ];
    for (const text of bad) {
      for (const url of [`/locations/public/globe?bbox=${text}`, `/locations/private?bbox=${text}`]) {
        const response = await get(url, reader);
        expect(response.statusCode, url).toBe(400);
        expect(response.json(), url).toEqual({
          type: 'urn:waypost:problem:invalid_request',
          code: 'invalid_request',
          title: 'Bad Request',
          status: 400,
          detail:
            'bbox must be min_lon,min_lat,max_lon,max_lat: four decimal numbers in degrees, longitudes from -180 ' +
            'to 180, latitudes from -90 to 90, with min_lat <= max_lat.',
          errors: [{ path: 'querystring/bbox', message: 'is not a valid bounding box' }],
        });
      }
    }
  });

  it('reads the same box as the views take as numbers', () => {
    expect(readBox('179,40,-179,50')).toEqual({ minLon: 179, minLat: 40, maxLon: -179, maxLat: 50 });
    expect(readBox('')).toBeUndefined();
  });
});

describe('the widened box the database reads', () => {
  const lat = fc.double({ min: -90, max: 90, noNaN: true });
  const lon = fc.double({ min: -180, max: 180, noNaN: true });
  const box = fc
    .tuple(lon, lat, lon, lat)
    .map(([minLon, a, maxLon, b]): Box => ({ minLon, minLat: Math.min(a, b), maxLon, maxLat: Math.max(a, b) }));

  it('holds every exact point whose rounded point is in the box', () => {
    fc.assert(
      fc.property(box, lat, lon, fc.integer({ min: 1, max: 100_000 }), (b, pLat, pLon, precision) => {
        const rounded = roundPoint(pLat, pLon, precision);
        if (!boxContains(b, rounded)) return;
        expect(boxContains(widenBox(b, precision), { lat: pLat, lon: pLon })).toBe(true);
      }),
      { numRuns: 20_000 },
    );
  });

  it('holds them near a box edge too, where it matters', () => {
    fc.assert(
      fc.property(lat, lon, fc.integer({ min: 1, max: 100_000 }), fc.boolean(), (pLat, pLon, precision, crossing) => {
        // A box whose edges are the rounded point itself: the tightest box that shows it.
        const r = roundPoint(pLat, pLon, precision);
        const b: Box = crossing
          ? { minLon: r.lon, minLat: r.lat, maxLon: r.lon === -180 ? 180 : r.lon - 1e-9, maxLat: r.lat }
          : { minLon: r.lon, minLat: r.lat, maxLon: r.lon, maxLat: r.lat };
        expect(boxContains(b, r)).toBe(true);
        expect(boxContains(widenBox(b, precision), { lat: pLat, lon: pLon })).toBe(true);
      }),
      { numRuns: 20_000 },
    );
  });
});

describe("the database's first cut", () => {
  it('holds every item the application keeps, and no other that SQL can round for sure', async () => {
    const user = await createTestUser(t.database);
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const precisions = [1, 37, 1000, 25_000, 100_000];
    const points: { lat: number; lon: number }[] = [];
    for (let i = 0; i < 600; i += 1) {
      points.push({ lat: -90 + random() * 180, lon: -180 + random() * 360 });
      points.push({ lat: 89.5 + random() * 0.5, lon: -180 + random() * 360 });
      points.push({ lat: -60 + random() * 120, lon: 179.5 + random() * 0.5 });
      // Exactly between two rows of a grid, where rounding halves decides.
      const step = precisions[i % precisions.length]! / 111_320;
      const row = Math.floor((-89 + random() * 178) / step);
      points.push({ lat: (row + 0.5) * step, lon: -180 + random() * 360 });
    }
    await insertItems(
      t.database,
      'locations',
      user.id,
      points.map((point, i) => ({ scope: 'public', time: i, ...point })),
    );
    const audience = { owner: user.id, scope: 'public' as const };
    const everything = { count: 100_000, order: 'asc' as const };
    const rows = (await selectPage(t.database.db, 'locations', audience, everything)).rows;
    let kept = 0;
    let extra = 0;
    for (const precision of precisions) {
      // Boxes whose edges lie a tenth of a micro-degree past a served place: on purpose nearer than
      // the database's first cut can tell apart (it grows the box by a micro-degree).
      const tight = new Set<Box>();
      const boxes: Box[] = [
        { minLon: -180, minLat: -90, maxLon: 180, maxLat: 90 },
        { minLon: 170, minLat: -30, maxLon: -170, maxLat: 30 },
        { minLon: -10, minLat: 89.9, maxLon: 10, maxLat: 90 },
      ];
      for (let i = 0; i < 40; i += 1) {
        const r = roundPoint(points[i * 13]!.lat, points[i * 13]!.lon, precision);
        boxes.push({ minLon: r.lon, minLat: r.lat, maxLon: r.lon, maxLat: r.lat });
        const nearly = { minLon: r.lon + 1e-7, minLat: r.lat - 1, maxLon: r.lon + 2, maxLat: r.lat + 1e-7 };
        tight.add(nearly);
        boxes.push(nearly);
        const [a, b] = [-90 + random() * 180, -90 + random() * 180];
        boxes.push({
          minLon: -180 + random() * 360,
          minLat: Math.min(a, b),
          maxLon: -180 + random() * 360,
          maxLat: Math.max(a, b),
        });
      }
      for (const box of boxes) {
        const place = servedPlaceFilter(box, precision);
        const read = await selectPage(
          t.database.db,
          'locations',
          audience,
          everything,
          placeFilter(t.database.db, place),
        );
        const keep = new Set(rows.filter(place.keeps).map((row) => row.id));
        const ids = new Set(read.rows.map((row) => row.id));
        for (const id of keep) expect(ids.has(id), `${precision} m, ${JSON.stringify(box)}: ${id}`).toBe(true);
        kept += keep.size;
        // Points exactly between two rows (every fourth) are read on purpose: SQL cannot round them for sure.
        const between = (row: { time: number }) => row.time % 4 === 3;
        if (!tight.has(box)) extra += read.rows.filter((row) => !keep.has(row.id) && !between(row)).length;
      }
    }
    expect(kept).toBeGreaterThan(10_000);
    // Else the database reads no point the application then drops.
    expect(extra).toBe(0);
  });
});
