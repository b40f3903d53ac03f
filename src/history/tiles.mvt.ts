// Mapbox Vector Tile 2.1 bytes from features already in tile coordinates, written by vt-pbf
// (the encoder geojson-vt users use) from the in-memory form it reads.
import vtpbf from 'vt-pbf';

export const MVT = 'application/vnd.mapbox-vector-tile';
export const EXTENT = 4096;

type Tags = Record<string, number | string>;
export interface TileFeature {
  /** 1 point, 2 line. */
  type: 1 | 2;
  /** A point: [[x, y]]; a line: [[[x, y], ...]]. */
  geometry: number[][] | number[][][];
  tags: Tags;
}

export type TileLayers = Record<string, TileFeature[]>;

export function encodeTile(layers: TileLayers): Buffer {
  const present = Object.fromEntries(
    Object.entries(layers)
      .filter(([, features]) => features.length > 0)
      .map(([name, features]) => [name, { features }]),
  );
  const bytes = vtpbf.fromGeojsonVt(present, { version: 2, extent: EXTENT });
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
