// The types of grid.js (plain JavaScript, because the browser loads it too).
export declare function gridLatStep(precisionM: number): number;
export declare function gridLonStep(latStep: number, roundedLat: number): number;
export declare function roundPoint(lat: number, lon: number, precisionM: number): { lat: number; lon: number };
