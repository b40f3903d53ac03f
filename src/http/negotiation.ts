// Content negotiation where one address serves a page to browsers and JSON to apps (a view:
// docs/api-views.md "In a browser").

/**
 * Whether the request prefers an HTML page to JSON: `text/html` named with a higher weight than
 * JSON gets (RFC 9110 12.5.1; `*` ranges count for what they cover). A browser's navigation
 * (`text/html,…,*\/*;q=0.8`) does; `*\/*`, no Accept, or `application/json` does not.
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  const ranges = accept.split(',').map((part) => {
    const [range = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const weight = q ? Number(q.slice(2)) : 1;
    return { range: range.trim(), weight: Number.isFinite(weight) ? weight : 0 };
  });
  const weightOf = (type: string) => {
    const [major] = type.split('/');
    const exact = ranges.find((r) => r.range === type);
    const partial = ranges.find((r) => r.range === `${major}/*`);
    const any = ranges.find((r) => r.range === '*/*');
    return (exact ?? partial ?? any)?.weight ?? 0;
  };
  const htmlWeight = weightOf('text/html');
  return htmlWeight > 0 && htmlWeight > weightOf('application/json');
}
