// LIKE patterns for SQL the two databases share: `%` and `_` match anything in LIKE, so an
// id looked for inside a stored JSON text is matched as it is (with `escape '\\'`).

/** `value` with LIKE's wildcards and the escape character escaped. */
export const likeLiteral = (value: string) => value.replace(/[\\%_]/g, (c) => `\\${c}`);
