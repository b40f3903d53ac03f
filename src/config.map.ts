// The basemap settings of src/config.ts (docs/maps.md): what the maps draw under the person's
// points, and the origins the map pages may reach for it.
import { ConfigError, httpUrl, read, type Env } from './config.env.ts';

/** What the maps draw under the person's points (`WAYPOST_MAP_STYLE`). */
export type MapStyle =
  { kind: 'raster'; tiles: string; attribution: string } | { kind: 'style'; url: string } | { kind: 'none' };

/** OpenStreetMap's tile usage policy asks for this attribution on every map that shows its tiles. */
const OSM_TILES = 'https://tile.openstreetmap.org/{z}/{x}/{y}.png';
const OSM_ATTRIBUTION = '© OpenStreetMap contributors';

export function mapStyle(env: Env): MapStyle {
  const name = 'WAYPOST_MAP_STYLE';
  const raw = read(env, name) ?? OSM_TILES;
  if (raw.toLowerCase() === 'none') return { kind: 'none' };
  // The placeholders are not URL syntax: checked on the template with them filled in.
  httpUrl(name, raw.replaceAll('{z}', '0').replaceAll('{x}', '0').replaceAll('{y}', '0'));
  const placeholders = ['{z}', '{x}', '{y}'].filter((p) => raw.includes(p)).length;
  if (placeholders === 0) return { kind: 'style', url: raw };
  if (placeholders !== 3) throw new ConfigError(name, 'a raster tile URL needs all of {z}, {x} and {y}');
  const attribution = read(env, 'WAYPOST_MAP_ATTRIBUTION') ?? (raw === OSM_TILES ? OSM_ATTRIBUTION : '');
  return { kind: 'raster', tiles: raw, attribution };
}

export function mapOrigins(env: Env, style: MapStyle): string[] {
  const origins = new Set<string>();
  if (style.kind === 'raster') origins.add(new URL(style.tiles.replace(/\{[zxy]\}/g, '0')).origin);
  if (style.kind === 'style') origins.add(new URL(style.url).origin);
  for (const part of (read(env, 'WAYPOST_MAP_ORIGINS') ?? '').split(',')) {
    if (part.trim()) origins.add(httpUrl('WAYPOST_MAP_ORIGINS', part.trim()).origin);
  }
  return [...origins];
}
