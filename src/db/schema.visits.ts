// The tables of visits, trips and places (migration 0033, docs/history.md "Visits and trips").
// Times are epoch milliseconds, as in every table.

export interface PlacesTable {
  id: string;
  user_id: string;
  /** The person's name for it; null until they give one (then `city` labels it). */
  name: string | null;
  lat: number;
  lon: number;
  radius_m: number;
  /** The nearest town or city, from the offline dataset (src/places/label.ts). */
  city: string | null;
  /** ISO 3166-1 alpha-2. */
  country: string | null;
  created_at: number;
}

export interface VisitsTable {
  user_id: string;
  /** Derived from the start (src/visits/visits.repo.ts): the same stay keeps its id. */
  id: string;
  place_id: string;
  start_time: number;
  end_time: number;
  lat: number;
  lon: number;
  point_count: number;
  confidence: number;
}

export interface TripsTable {
  user_id: string;
  id: string;
  start_time: number;
  end_time: number;
  distance_m: number;
  mode: string;
  from_visit_id: string | null;
  to_visit_id: string | null;
}

export type CorrectionKind = 'place' | 'split' | 'merge' | 'not_a_stay';

/** What the person said of [start_time, end_time]; for `split`, both are the instant. */
export interface VisitCorrectionsTable {
  id: string;
  user_id: string;
  kind: CorrectionKind;
  start_time: number;
  end_time: number;
  /** For `place`: the place the stay was at. */
  place_id: string | null;
  created_at: number;
}

/** UTC days (days since the epoch) whose points changed since visits were detected. */
export interface VisitMarksTable {
  user_id: string;
  day: number;
}

/** A visit as the detector found it, before corrections (migration 0037). */
export interface VisitSpansTable {
  user_id: string;
  start_time: number;
  end_time: number;
}
