// Other representations of a page of locations (docs/api.md "Collections"): GeoJSON (RFC 7946) and
// GPX 1.1, chosen by `format` or by `Accept`.
import { BaseBuilder, buildGPX } from 'gpx-builder';
import { CSV_HEADER, csvRows, geojsonSeq, toFeature, TYPES } from './locations.downloads.ts';
import { chosenFormat, type Rendered } from '../items/kinds.ts';
import type { Location, LocationsParams } from './locations.schemas.ts';

export const GEOJSON = 'application/geo+json';
export const GPX = 'application/gpx+xml';

/** What a page is by Accept; CSV and GeoJSON Text Sequences only by `format`. */
const PAGE_BY_ACCEPT = [
  [GEOJSON, 'geojson'],
  [GPX, 'gpx'],
] as const;

/** A FeatureCollection of Point features; the object's other fields are the properties. */
export function toGeoJson(points: Location[]) {
  return { type: 'FeatureCollection' as const, features: points.map(toFeature) };
}

/** One GPX track segment, oldest point first as GPX readers expect. */
export function toGpx(points: Location[], title: string): string {
  const { Point } = BaseBuilder.MODELS;
  const builder = new BaseBuilder();
  builder.setMetadata(new BaseBuilder.MODELS.Metadata({ name: title }));
  const ordered = [...points].sort((a, b) => a.time - b.time || (a.id < b.id ? -1 : 1));
  builder.setSegmentPoints(
    ordered.map(
      (point) =>
        new Point(point.lat, point.lon, {
          ...(point.alt === null ? {} : { ele: point.alt }),
          time: new Date(point.time * 1000),
        }),
    ),
  );
  return buildGPX(builder.toObject());
}

export async function renderLocations(
  accept: string | undefined,
  points: Location[],
  params: LocationsParams,
  title: string,
): Promise<Rendered | undefined> {
  const format = chosenFormat(accept, params.format, PAGE_BY_ACCEPT);
  if (format === 'geojson') return { type: GEOJSON, body: JSON.stringify(toGeoJson(points)) };
  if (format === 'gpx') return { type: `${GPX}; charset=utf-8`, body: toGpx(points, title) };
  if (format === 'csv') return { type: TYPES.csv, body: CSV_HEADER + csvRows(points) };
  if (format === 'geojsonseq') return { type: TYPES.geojsonseq, body: geojsonSeq(points) };
  return undefined;
}
