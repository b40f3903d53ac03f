// Conditional GET (RFC 9110 13.1.2), for every answer with an ETag: public pages, tiles, files.

/** Without a leading `W/`: If-None-Match compares weakly (RFC 9110 8.8.3.2). */
const opaque = (tag: string) => (tag.startsWith('W/') ? tag.slice(2) : tag);

/** Whether `If-None-Match` names `etag` (or is `*`): the client has it, so the answer is 304. */
export function noneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const current = opaque(etag);
  return header.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || opaque(trimmed) === current;
  });
}
