// The map modules import MapLibre as ./maplibre-gl.mjs, the URL the server gives it beside them
// (src/web/assets.ts, the map folder); for the type-check that URL is the npm package.
export * from 'maplibre-gl';
