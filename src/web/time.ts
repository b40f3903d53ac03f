// Days and times in the person's time zone, for the pages.
import { offsetMs, zonedToUtc } from '../lib/time.ts';

/** The wall clock of the instant in the zone, as an ISO string read in UTC. */
const wallClock = (ms: number, timeZone: string) => new Date(ms + offsetMs(ms, timeZone)).toISOString();

/** `YYYY-MM-DD` of the instant in the zone. */
export function dayOf(ms: number, timeZone: string): string {
  return wallClock(ms, timeZone).slice(0, 10);
}

/** `HH:MM` of the instant in the zone. */
export function clockOf(ms: number, timeZone: string): string {
  return wallClock(ms, timeZone).slice(11, 16);
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

/** The instant the day after `YYYY-MM-DD` begins in the zone (the end of that day). */
export function endOfDay(day: string, timeZone: string): number | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!match) return undefined;
  const midnight = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]) + 1);
  if (!Number.isFinite(midnight)) return undefined;
  return zonedToUtc(midnight, timeZone);
}
