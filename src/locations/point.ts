// What a location fix measures, as every way in (POST /locations, trackers, imports) hands it on
// after reading: one shape, times in milliseconds, units of docs/api.md "Objects": location.

export interface Fix {
  timeMs: number;
  lat: number;
  lon: number;
  alt: number | null;
  accuracy: number | null;
  speed: number | null;
  heading: number | null;
}
