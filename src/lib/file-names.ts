/** A file's name for display: no path, no control characters, at most 255 characters; '' for none. */
export function cleanFileName(name: string | undefined | null): string {
  const base = (name ?? '').split(/[/\\]/).pop() ?? '';
  const printable = [...base].filter((c) => c.charCodeAt(0) > 0x1f && c.charCodeAt(0) !== 0x7f).join('');
  return printable.slice(0, 255);
}
