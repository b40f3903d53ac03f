// Looking into parsed JSON (request bodies, feeds, files being imported), where any value may
// be anything.

/** A JSON object: named members of any value. */
export type JsonObject = Record<string, unknown>;

/** Whether a parsed value is an object with members (not null, not an array). */
export const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
