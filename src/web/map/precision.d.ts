// settings-map.js imports the privacy grid as ./precision.js, the URL the server gives
// src/privacy/grid.js beside the map modules (src/web/assets.ts); for the type-check it is that file.
export * from '../../privacy/grid.js';
