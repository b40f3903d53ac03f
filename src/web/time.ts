// Days and times in the person's time zone, for the pages.
const dayFormats = new Map<string, Intl.DateTimeFormat>();

function parts(ms: number, timeZone: string): Record<string, string> {
  let format = dayFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-GB', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
    dayFormats.set(timeZone, format);
  }
  return Object.fromEntries(format.formatToParts(ms).map((p) => [p.type, p.value]));
}

/** `YYYY-MM-DD` of the instant in the zone. */
export function dayOf(ms: number, timeZone: string): string {
  const p = parts(ms, timeZone);
  return `${p.year}-${p.month}-${p.day}`;
}

/** `HH:MM` of the instant in the zone. */
export function clockOf(ms: number, timeZone: string): string {
  const p = parts(ms, timeZone);
  return `${p.hour}:${p.minute}`;
}

/** "Monday, 23 November 2026" for a `YYYY-MM-DD`. */
export function dayHeading(day: string): string {
  return new Date(`${day}T12:00:00Z`).toLocaleDateString('en-GB', {
    timeZone: 'UTC',
    weekday: 'long',
    day: 'numeric',
    month: 'long',
    year: 'numeric',
  });
}

function offsetMs(instant: number, timeZone: string): number {
  const p = parts(instant, timeZone);
  const asUtc = Date.UTC(
    Number(p.year),
    Number(p.month) - 1,
    Number(p.day),
    Number(p.hour),
    Number(p.minute),
    Number(p.second),
  );
  return asUtc - Math.floor(instant / 1000) * 1000;
}

/** The instant the day after `YYYY-MM-DD` begins in the zone (the end of that day). */
export function endOfDay(day: string, timeZone: string): number | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!match) return undefined;
  const midnight = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]) + 1);
  if (!Number.isFinite(midnight)) return undefined;
  const first = midnight - offsetMs(midnight, timeZone);
  return midnight - offsetMs(first, timeZone);
}
