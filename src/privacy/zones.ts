// Privacy zones (docs/privacy.md "Privacy zones"): circles a person never wants shown. A public
// point in the area a zone hides is, for everyone but its owner, a private one; a public post
// or medium there is shown without its location.
//
// The area a zone hides is made of whole cells of a grid as wide as the zone's radius, or as the
// public precision when that is coarser: a cell is hidden when its centre lies within
//
//   radius + (how far a point of the cell can be from its centre)
//          + (how far rounding to the precision can move a point, when the grids differ)
//
// of the zone's centre. So (1) every point in the circle is hidden; (2) no point shown is
// served inside the circle, rounding included; (3) the hole's edge follows cells a radius
// wide, so its shape tells the centre only to within about half a cell, not from the curve of
// a circle. The cost: a zone hides up to about 2.5 radii around its centre (and a cell of the
// precision more).
import type { FieldError } from '../core/errors.ts';
import { gridLatStep, gridLonStep, roundPoint } from './precision.ts';

export interface Zone {
  name: string;
  lat: number;
  lon: number;
  radius_m: number;
}

export const ZONES_MAX = 20;
export const ZONE_NAME_MAX = 100;
export const ZONE_RADIUS_MIN_M = 50;
export const ZONE_RADIUS_MAX_M = 5000;
/** Zones are for places people live: within 85 degrees of the equator, where the grid is regular. */
export const ZONE_LAT_MAX = 85;

const EARTH_RADIUS_M = 6_371_008.8;
const RAD = Math.PI / 180;
/** For the six decimals a served place is cut to, and float error. */
const SLACK_M = 1;
/** The precision cells within one zone cell differ in size by far less than this factor below 85 degrees. */
const CELL_SPREAD = 1.02;

/** Great-circle distance in metres. */
export function distanceM(a: { lat: number; lon: number }, b: { lat: number; lon: number }): number {
  const dLat = (b.lat - a.lat) * RAD;
  const dLon = (b.lon - a.lon) * RAD;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * RAD) * Math.cos(b.lat * RAD) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** How far a point of the grid cell centred at `centre` can lie from it: its corner nearer the equator. */
function cellReachM(centre: { lat: number; lon: number }, stepM: number): number {
  const latStep = gridLatStep(stepM);
  const lonStep = gridLonStep(latStep, centre.lat);
  const corner = {
    lat: centre.lat >= 0 ? centre.lat - latStep / 2 : centre.lat + latStep / 2,
    lon: centre.lon + lonStep / 2,
  };
  return distanceM(centre, corner) + SLACK_M;
}

/** Whether an exact place lies in the area a privacy zone hides. */
export type HideRule = (lat: number, lon: number) => boolean;

export const HIDES_NOTHING: HideRule = () => false;

/** The farthest (metres) a hidden point can be from its zone's centre: the reach of `hideRule`. */
export function hiddenReachM(zone: Zone, precisionM: number): number {
  const step = Math.max(precisionM, zone.radius_m);
  return zone.radius_m + 2 * step + precisionM + 10 * SLACK_M;
}

/** The rule above for a person's zones at their public precision. */
export function hideRule(zones: readonly Zone[], precisionM: number): HideRule {
  if (zones.length === 0) return HIDES_NOTHING;
  const rules = zones.map((zone) => ({
    centre: { lat: zone.lat, lon: zone.lon },
    radius: zone.radius_m,
    step: Math.max(precisionM, zone.radius_m),
    reachDeg: hiddenReachM(zone, precisionM) / 111_000,
  }));
  return (lat, lon) =>
    rules.some((zone) => {
      if (Math.abs(lat - zone.centre.lat) > zone.reachDeg) return false;
      const cell = roundPoint(lat, lon, zone.step);
      const rounding = zone.step === precisionM || precisionM <= 0 ? 0 : CELL_SPREAD * cellReachM(cell, precisionM);
      return distanceM(cell, zone.centre) <= zone.radius + cellReachM(cell, zone.step) + rounding;
    });
}

/** What is wrong with a list of zones, as field errors under `path` (e.g. `body/privacy_zones`). */
export function zoneProblems(zones: readonly Zone[], path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (zones.length > ZONES_MAX) errors.push({ path, message: `must hold at most ${ZONES_MAX} zones` });
  zones.forEach((zone, index) => {
    const at = (field: string, message: string) => errors.push({ path: `${path}/${index}/${field}`, message });
    if (typeof zone.name !== 'string' || zone.name.trim() === '' || zone.name.length > ZONE_NAME_MAX) {
      at('name', `must be 1 to ${ZONE_NAME_MAX} characters, not blank`);
    }
    if (!Number.isFinite(zone.lat) || Math.abs(zone.lat) > ZONE_LAT_MAX) {
      at('lat', `must be a latitude from -${ZONE_LAT_MAX} to ${ZONE_LAT_MAX}`);
    }
    if (!Number.isFinite(zone.lon) || Math.abs(zone.lon) > 180) at('lon', 'must be a longitude from -180 to 180');
    if (!Number.isFinite(zone.radius_m) || zone.radius_m < ZONE_RADIUS_MIN_M || zone.radius_m > ZONE_RADIUS_MAX_M) {
      at('radius_m', `must be a number of metres from ${ZONE_RADIUS_MIN_M} to ${ZONE_RADIUS_MAX_M}`);
    }
  });
  return errors;
}

/** The zones as stored: only their four fields, the name trimmed. */
export function normalZones(zones: readonly Zone[]): Zone[] {
  return zones.map((zone) => ({ name: zone.name.trim(), lat: zone.lat, lon: zone.lon, radius_m: zone.radius_m }));
}

/** The stored JSON text back as zones; anything unreadable hides nothing more than it says. */
export function parseZones(text: string): Zone[] {
  const value = JSON.parse(text) as unknown;
  return Array.isArray(value) ? (value as Zone[]) : [];
}

/** Whether two lists of zones hide the same (same zones in the same order). */
export function sameZones(a: readonly Zone[], b: readonly Zone[]): boolean {
  return JSON.stringify(normalZones(a)) === JSON.stringify(normalZones(b));
}
