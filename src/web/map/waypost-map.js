// @ts-check
// A person's points on a map, drawn from Waypost's vector tiles (docs/history.md "Tiles") with
// MapLibre GL JS (docs/maps.md). Low zooms carry counts per cell (drawn as density), high zooms
// the points and the tracks between them; the browser never receives every point.
//
// Every element with `data-waypost-map` becomes a map. It names what to draw:
//   data-tiles     the tile URL template ({z}/{x}/{y}); without it, no points (a page adds its own layers)
//   data-basemap   JSON: {kind: "raster", tiles, attribution} | {kind: "style", url} | {kind: "none"}
//   data-center    "lon,lat" to open at (optional), data-zoom the zoom there
//   data-bounds    "west,south,east,north" to fit instead (the points shown)
//   data-draw      "points" (default), "lines" or "heat": how the points are drawn
//   data-marker    "lon,lat" of one place to mark (a photo's, in the media viewer)
//   data-zone      the IANA time zone popups give times in (the owner's), and name
// and reports what it drew, for people using assistive technology and for tests:
//   data-map-state "ready" once drawn, "failed" when the browser cannot draw maps (no WebGL)
//   data-points-drawn  the points shown on screen (a cell counts its points)
/* global document, window */
import { AttributionControl, Map as MapLibre, NavigationControl, Popup } from './maplibre-gl.mjs';

/** @typedef {import('./maplibre-gl.mjs').StyleSpecification} StyleSpecification */
/** @typedef {import('./maplibre-gl.mjs').GeoJSONSource} GeoJSONSource */
/** @typedef {import('./maplibre-gl.mjs').VectorTileSource} VectorTileSource */
/** @typedef {import('../../config.ts').MapStyle} Basemap */
/** @typedef {import('../../history/tracks.logic.ts').DayTrack} DayTrack */
/**
 * What a map draws (optionsOf reads it from the element), and what the owner's page adds.
 * @typedef {object} MapOptions
 * @property {string} [tiles]
 * @property {Basemap} basemap
 * @property {[number, number]} [center] longitude, latitude
 * @property {number} [zoom]
 * @property {[number, number, number, number]} [bounds] west, south, east, north
 * @property {Draw} [draw]
 * @property {[number, number]} [marker] longitude, latitude of one place to mark
 * @property {string} [zone] the IANA time zone popups give times in
 * @property {(time: number, close: () => void) => Promise<(string | Node)[]>} [describe]
 */
/** @typedef {'points' | 'lines' | 'heat'} Draw */
/**
 * What createMap gives back to change what is drawn.
 * @typedef {object} MapHandle
 * @property {MapLibre} map
 * @property {(tiles: string) => void} setTiles
 * @property {(feature: DayTrack) => void} showTrack
 * @property {(draw: Draw) => void} setDraw
 * @property {() => void} refresh
 */

const ACCENT = '#c2185b';
const TRACK = '#1565c0';

/**
 * The style under the points: a plain background, and the basemap when one is configured.
 * @param {Basemap} basemap
 * @returns {Promise<StyleSpecification>}
 */
async function baseStyle(basemap) {
  /** @type {StyleSpecification} */
  const plain = {
    version: 8,
    sources: {},
    layers: [{ id: 'background', type: 'background', paint: { 'background-color': '#eef1ec' } }],
  };
  if (basemap.kind === 'raster') {
    plain.sources.basemap = {
      type: 'raster',
      tiles: [basemap.tiles],
      tileSize: 256,
      maxzoom: 19,
      attribution: basemap.attribution,
    };
    plain.layers.push({ id: 'basemap', type: 'raster', source: 'basemap' });
    return plain;
  }
  if (basemap.kind === 'style') {
    // A style that cannot be loaded (offline, a host down) must not keep the points from showing.
    try {
      const response = await fetch(basemap.url);
      if (response.ok) return await response.json();
    } catch {
      // fall through to the plain background
    }
  }
  return plain;
}

/**
 * The person's layers, above whatever the basemap drew (none without tiles).
 * @param {StyleSpecification} style
 * @param {string | undefined} tiles
 */
function addPointLayers(style, tiles) {
  if (!tiles) return style;
  style.sources.waypost = { type: 'vector', tiles: [tiles], minzoom: 0, maxzoom: 18 };
  style.layers.push(
    {
      id: 'waypost-cells',
      type: 'circle',
      source: 'waypost',
      'source-layer': 'cells',
      paint: {
        'circle-color': ACCENT,
        'circle-opacity': ['interpolate', ['linear'], ['ln', ['+', 1, ['get', 'count']]], 0, 0.35, 8, 0.8],
        'circle-radius': ['interpolate', ['linear'], ['ln', ['+', 1, ['get', 'count']]], 0, 3, 8, 14],
        'circle-stroke-color': '#ffffff',
        'circle-stroke-width': 1,
      },
    },
    {
      id: 'waypost-tracks',
      type: 'line',
      source: 'waypost',
      'source-layer': 'tracks',
      layout: { 'line-cap': 'round', 'line-join': 'round' },
      paint: { 'line-color': ACCENT, 'line-width': 2, 'line-opacity': 0.7 },
    },
    {
      id: 'waypost-points',
      type: 'circle',
      source: 'waypost',
      'source-layer': 'points',
      paint: {
        'circle-color': ACCENT,
        'circle-radius': 4,
        'circle-stroke-color': '#ffffff',
        'circle-stroke-width': 1,
      },
    },
    // The heatmap: cells weigh their count (a log, so a city does not drown a trip), points one each.
    {
      id: 'waypost-heat-cells',
      type: 'heatmap',
      source: 'waypost',
      'source-layer': 'cells',
      layout: { visibility: 'none' },
      paint: {
        'heatmap-weight': ['interpolate', ['linear'], ['ln', ['+', 1, ['get', 'count']]], 0, 0.2, 8, 1],
        'heatmap-radius': 18,
        'heatmap-opacity': 0.8,
      },
    },
    {
      id: 'waypost-heat-points',
      type: 'heatmap',
      source: 'waypost',
      'source-layer': 'points',
      layout: { visibility: 'none' },
      paint: { 'heatmap-weight': 0.3, 'heatmap-radius': 14, 'heatmap-opacity': 0.8 },
    },
  );
  return style;
}

/**
 * Shows the points as dots, as lines (the tracks, with small dots where a tile has only counts),
 * or as a heatmap. The circles stay drawn, transparent, under the heatmap and the lines, so a
 * click still finds a point and the count on screen stays what it is.
 * @param {MapLibre} map
 * @param {Draw} draw
 */
function applyDraw(map, draw) {
  if (!map.getLayer('waypost-points')) return;
  const heat = draw === 'heat' ? 'visible' : 'none';
  map.setLayoutProperty('waypost-heat-cells', 'visibility', heat);
  map.setLayoutProperty('waypost-heat-points', 'visibility', heat);
  map.setLayoutProperty('waypost-tracks', 'visibility', draw === 'heat' ? 'none' : 'visible');
  map.setPaintProperty('waypost-tracks', 'line-width', draw === 'lines' ? 3 : 2);
  const pointOpacity = draw === 'points' ? 1 : draw === 'lines' ? 0.5 : 0;
  map.setPaintProperty('waypost-points', 'circle-opacity', pointOpacity);
  map.setPaintProperty('waypost-points', 'circle-stroke-opacity', draw === 'points' ? 1 : 0);
  map.setPaintProperty('waypost-points', 'circle-radius', draw === 'lines' ? 2 : 4);
  map.setPaintProperty(
    'waypost-cells',
    'circle-opacity',
    draw === 'heat'
      ? 0
      : ['interpolate', ['linear'], ['ln', ['+', 1, ['get', 'count']]], 0, draw === 'lines' ? 0.2 : 0.35, 8, 0.8],
  );
  map.setPaintProperty('waypost-cells', 'circle-stroke-opacity', draw === 'points' ? 1 : 0);
}

/**
 * Points on screen: each point feature once, each cell by its count.
 * @param {MapLibre} map
 */
function pointsDrawn(map) {
  const seen = new Set();
  let total = 0;
  const layers = ['waypost-cells', 'waypost-points'].filter((id) => map.getLayer(id));
  if (layers.length === 0) return 0;
  for (const feature of map.queryRenderedFeatures({ layers })) {
    // A feature on a tile edge can be returned once per tile that holds it. Both layers draw points.
    const point = /** @type {GeoJSON.Point} */ (feature.geometry);
    const key = `${feature.layer.id}:${feature.properties.time ?? ''}:${JSON.stringify(point.coordinates)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    total += feature.layer.id === 'waypost-cells' ? Number(feature.properties.count) : 1;
  }
  return total;
}

/**
 * An instant on the owner's clock, with the zone's short name ("3 Jun 2019, 10:00:00 CEST"), so
 * that a reader elsewhere in the world knows which clock it is.
 * @param {number} seconds
 * @param {string} [zone] IANA name; the browser's own zone without one
 */
export function when(seconds, zone) {
  return new Date(seconds * 1000).toLocaleString('en-GB', {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    timeZoneName: 'short',
    ...(zone ? { timeZone: zone } : {}),
  });
}

/**
 * One place marked on the map (a photo's): a GeoJSON point drawn as a ring.
 * @param {MapLibre} map
 * @param {[number, number]} marker
 */
function addMarker(map, marker) {
  map.addSource('waypost-marker', {
    type: 'geojson',
    data: { type: 'Feature', properties: {}, geometry: { type: 'Point', coordinates: marker } },
  });
  map.addLayer({
    id: 'waypost-marker',
    type: 'circle',
    source: 'waypost-marker',
    paint: {
      'circle-color': ACCENT,
      'circle-radius': 7,
      'circle-stroke-color': '#ffffff',
      'circle-stroke-width': 2,
    },
  });
}

/**
 * A popup's content, built from text nodes (never HTML from data) and the page's own elements.
 * @param {(string | Node)[]} lines
 */
function popupContent(lines) {
  const box = document.createElement('div');
  for (const line of lines) {
    const p = document.createElement('p');
    p.append(line);
    box.append(p);
  }
  return box;
}

/**
 * The name of a map's canvas (a region MapLibre makes focusable), from the map element's own.
 * @param {HTMLElement} container
 */
function canvasName(container) {
  const name = container.getAttribute('aria-label');
  return name ? `${name}: drag, or use the arrow keys, to move` : 'Map';
}

/**
 * Makes `container` a map of the points in `options.tiles`. `options.describe(time)` may add
 * lines about a clicked point (the owner's page adds its accuracy). Returns a handle to change
 * what is drawn, or undefined when this browser cannot draw a map.
 * @param {HTMLElement} container
 * @param {MapOptions} options
 * @returns {Promise<MapHandle | undefined>}
 */
export async function createMap(container, options) {
  const style = addPointLayers(await baseStyle(options.basemap), options.tiles);
  let map;
  try {
    map = new MapLibre({
      container,
      style,
      center: options.center ?? [0, 20],
      zoom: options.zoom ?? (options.center ? 9 : 1),
      ...(options.bounds ? { bounds: options.bounds, fitBoundsOptions: { padding: 60, maxZoom: 16 } } : {}),
      attributionControl: false,
      maxZoom: 19,
      // MapLibre makes its canvas a region named "Map": with two maps on a page (Settings) the
      // two regions had one name (axe: landmark-unique). Each canvas takes its map's own name.
      locale: { 'Map.Title': canvasName(container) },
    });
  } catch (error) {
    container.dataset.mapState = 'failed';
    const note = document.createElement('p');
    note.className = 'map-failed';
    note.textContent = `This browser cannot draw the map (${error instanceof Error ? error.message : 'no WebGL'}).`;
    container.append(note);
    return undefined;
  }
  map.addControl(new NavigationControl({ showCompass: false }));
  map.once('load', () => {
    applyDraw(map, options.draw ?? 'points');
    if (options.marker) addMarker(map, options.marker);
  });
  map.addControl(new AttributionControl({ compact: true }));
  map.on('idle', () => {
    container.dataset.pointsDrawn = String(pointsDrawn(map));
    container.dataset.mapState = 'ready';
  });
  for (const layer of ['waypost-points', 'waypost-cells']) {
    map.on('mouseenter', layer, () => (map.getCanvas().style.cursor = 'pointer'));
    map.on('mouseleave', layer, () => (map.getCanvas().style.cursor = ''));
  }
  map.on('click', 'waypost-cells', (event) => {
    const feature = event.features?.[0];
    if (!feature) return;
    const count = Number(feature.properties.count);
    new Popup()
      .setLngLat(event.lngLat)
      .setDOMContent(popupContent([`${count} point${count === 1 ? '' : 's'} here`]))
      .addTo(map);
  });
  map.on('click', 'waypost-points', async (event) => {
    const feature = event.features?.[0];
    if (!feature) return;
    const time = Number(feature.properties.time);
    const popup = new Popup()
      .setLngLat(event.lngLat)
      .setDOMContent(popupContent([when(time, options.zone)]))
      .addTo(map);
    const more = options.describe ? await options.describe(time, () => popup.remove()) : [];
    if (more.length > 0) popup.setDOMContent(popupContent([when(time, options.zone), ...more]));
  });
  return {
    map,
    /** Draws other tiles (another time range, or what strangers see). */
    setTiles(tiles) {
      /** @type {VectorTileSource | undefined} */ (map.getSource('waypost'))?.setTiles([tiles]);
    },
    /** Draws the points as dots, lines or a heatmap. */
    setDraw(draw) {
      if (map.loaded()) applyDraw(map, draw);
      else map.once('load', () => applyDraw(map, draw));
    },
    /** Reads the tiles again (after a delete): they are revalidated by their ETag. */
    refresh() {
      /** @type {VectorTileSource | undefined} */
      const source = map.getSource('waypost');
      const tiles = source?.tiles;
      if (source && tiles) source.setTiles([...tiles]);
    },
    /** Draws one day's track (a GeoJSON Feature with a LineString) and moves the map to it. */
    showTrack(feature) {
      /** @type {GeoJSON.GeoJSON} */
      const data = feature.geometry
        ? /** @type {GeoJSON.Feature} with its line */ (feature)
        : { type: 'FeatureCollection', features: [] };
      /** @type {GeoJSONSource | undefined} */
      const source = map.getSource('waypost-day');
      if (source) source.setData(data);
      else {
        map.addSource('waypost-day', { type: 'geojson', data });
        map.addLayer({
          id: 'waypost-day',
          type: 'line',
          source: 'waypost-day',
          layout: { 'line-cap': 'round', 'line-join': 'round' },
          paint: { 'line-color': TRACK, 'line-width': 4 },
        });
      }
      const coordinates = feature.geometry?.coordinates ?? [];
      if (coordinates.length > 1) {
        const lons = coordinates.map((c) => c[0]);
        const lats = coordinates.map((c) => c[1]);
        map.fitBounds(
          [
            [Math.min(...lons), Math.min(...lats)],
            [Math.max(...lons), Math.max(...lats)],
          ],
          { padding: 40, maxZoom: 16, duration: 0 },
        );
      }
    },
  };
}

/**
 * A same-origin path as an absolute URL (MapLibre's worker needs one).
 * @param {string} path
 */
export function absolute(path) {
  return path.startsWith('/') ? `${window.location.origin}${path}` : path;
}

/**
 * The options a map element names in its data attributes.
 * @param {HTMLElement} element
 * @returns {MapOptions}
 */
export function optionsOf(element) {
  const center = element.dataset.center?.split(',').map(Number);
  const bounds = element.dataset.bounds?.split(',').map(Number);
  const draw = element.dataset.draw;
  const marker = element.dataset.marker?.split(',').map(Number);
  return {
    // Not through URL(): it would percent-encode the {z}/{x}/{y} placeholders.
    tiles: element.dataset.tiles ? absolute(element.dataset.tiles) : undefined,
    basemap: JSON.parse(element.dataset.basemap ?? '{"kind":"none"}'),
    center:
      center && center.length === 2 && center.every(Number.isFinite)
        ? /** @type {[number, number]} */ (center)
        : undefined,
    zoom: element.dataset.zoom ? Number(element.dataset.zoom) : undefined,
    bounds:
      bounds && bounds.length === 4 && bounds.every(Number.isFinite)
        ? /** @type {[number, number, number, number]} */ (bounds)
        : undefined,
    draw: draw === 'lines' || draw === 'heat' ? draw : 'points',
    marker:
      marker && marker.length === 2 && marker.every(Number.isFinite)
        ? /** @type {[number, number]} */ (marker)
        : undefined,
    zone: element.dataset.zone || undefined,
  };
}

for (const element of /** @type {NodeListOf<HTMLElement>} */ (
  document.querySelectorAll('[data-waypost-map]:not([data-map-manual])')
)) {
  void createMap(element, optionsOf(element));
}
