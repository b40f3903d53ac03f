// What a location fix measures, as every way in (POST /locations, trackers, imports) hands it on
// after reading: one shape, times in milliseconds, units of docs/api.md "Objects": location.

/** What a fix measures, as the API object of a point carries it too. */
export interface Measured {
  lat: number;
  lon: number;
  alt: number | null;
  accuracy: number | null;
  speed: number | null;
  heading: number | null;
}

export interface Fix extends Measured {
  timeMs: number;
}
