// How deep JSON may nest before it is refused unread (docs/imports.md "Limits"): the import
// readers and a restore's JSON files keep the same bound.

/** Containers (JSON arrays and objects) open at once. */
export const JSON_DEPTH_MAX = 64;

/** Whether JSON text nests deeper than JSON_DEPTH_MAX (scanned before JSON.parse builds it). */
export function nestsTooDeep(text: string): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > JSON_DEPTH_MAX) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}
