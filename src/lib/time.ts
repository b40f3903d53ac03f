// The API speaks Unix epoch seconds with a fractional part (docs/api.md "General rules"); the
// database stores integer milliseconds, so keyset comparisons are exact.

/**
 * The furthest a time may be from the epoch, either way, in seconds (about 3,170 years, so
 * milliseconds stay exact integers): what the API takes, and the line from which a number of
 * seconds in a file is taken to be milliseconds.
 */
export const TIME_LIMIT_S = 1e11;
/** TIME_LIMIT_S in milliseconds. */
export const TIME_LIMIT_MS = TIME_LIMIT_S * 1000;
/** Whether a number of epoch seconds is within TIME_LIMIT_S (never NaN or an infinity). */
export const withinTimeLimit = (seconds: number) => Number.isFinite(seconds) && Math.abs(seconds) <= TIME_LIMIT_S;
/** What a query parameter outside TIME_LIMIT_S is told. */
export const TIME_LIMIT_MESSAGE = 'must be a number of seconds from -1e11 to 1e11';

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

/** The UTC instant of a wall-clock time, given the zone's offset at any instant. */
function wallToUtc(wallMs: number, offsetAt: (ms: number) => number): number {
  const first = wallMs - offsetAt(wallMs);
  return wallMs - offsetAt(first);
}

/**
 * The UTC instant of a wall-clock time in `timeZone` (the later one when it is ambiguous): the
 * offset is taken twice, so a wall time near a daylight-saving change lands on the right side.
 */
export function zonedToUtc(wallMs: number, timeZone: string): number {
  return wallToUtc(wallMs, (ms) => offsetMs(ms, timeZone));
}

/** Where a zone's offset holds from on, ascending (src/history/geo.ts offsetSpans). */
export type OffsetSpans = { start: number; offset: number }[];

/** The offset the spans give at a UTC instant (the first span's before they begin). */
export function offsetIn(ms: number, spans: OffsetSpans): number {
  let low = 0;
  let high = spans.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (spans[middle]!.start <= ms) low = middle;
    else high = middle - 1;
  }
  return spans[low]!.offset;
}

/**
 * zonedToUtc from a zone's spans instead of asking Intl: the same instant wherever the spans
 * cover the wall time give or take a day.
 */
export function zonedToUtcIn(wallMs: number, spans: OffsetSpans): number {
  return wallToUtc(wallMs, (ms) => offsetIn(ms, spans));
}

/** Days since 1970-01-01 of a UTC instant's date in the zone. */
export function localDay(ms: number, timeZone: string): number {
  return Math.floor((ms + offsetMs(ms, timeZone)) / 86_400_000);
}
