// The API speaks Unix epoch seconds with a fractional part (docs/api.md "General rules"); the
// database stores integer milliseconds, so keyset comparisons are exact.

export function nowMs(): number {
  return Date.now();
}

export function msToSeconds(ms: number): number {
  return ms / 1000;
}

export function secondsToMs(seconds: number): number {
  return Math.round(seconds * 1000);
}

// Wall-clock time in a zone. Intl gives the wall clock of an instant in a zone; the offset is their difference.
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, format);
  }
  return format;
}

/** Milliseconds to add to a UTC instant to get the wall clock in `timeZone` at that instant. */
export function offsetMs(ms: number, timeZone: string): number {
  const parts = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0 };
  for (const part of formatter(timeZone).formatToParts(new Date(ms))) {
    if (part.type in parts) parts[part.type as keyof typeof parts] = Number(part.value);
  }
  const wall = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second);
  return wall - Math.floor(ms / 1000) * 1000;
}

/**
 * The UTC instant of a wall-clock time in `timeZone` (the later one when it is ambiguous): the
 * offset is taken twice, so a wall time near a daylight-saving change lands on the right side.
 */
export function zonedToUtc(wallMs: number, timeZone: string): number {
  const first = wallMs - offsetMs(wallMs, timeZone);
  const second = wallMs - offsetMs(first, timeZone);
  return second;
}
