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

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * The instants a `YYYY-MM-DD` begins and ends in the zone (ms, the end exclusive: 23 or 25 hours
 * later on the days the clocks change); undefined when it is not a day of the calendar.
 */
export function dayBounds(day: string, timeZone: string): { start: number; end: number } | undefined {
  const match = DATE.exec(day);
  if (!match) return undefined;
  const wall = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  // Date.UTC rolls 2024-02-30 over to March and reads years 0 to 99 as 1900 to 1999.
  if (!Number.isFinite(wall) || new Date(wall).toISOString().slice(0, 10) !== day) return undefined;
  return { start: zonedToUtc(wall, timeZone), end: zonedToUtc(wall + 86_400_000, timeZone) };
}

/** The `YYYY-MM-DD` some days after (or, negative, before) another. */
export function addDays(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/** The instant the day after `YYYY-MM-DD` begins in the zone (the end of that day). */
export function endOfDay(day: string, timeZone: string): number | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!match) return undefined;
  const midnight = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]) + 1);
  if (!Number.isFinite(midnight)) return undefined;
  return zonedToUtc(midnight, timeZone);
}

/**
 * "3 Jun 2019, 10:00 CEST": an instant (epoch seconds) on the wall clock of the zone, with the
 * zone's short name (or its offset, "GMT+9", where it has no common abbreviation), so a reader
 * elsewhere knows which clock it is.
 */
export function readableTime(seconds: number, timeZone: string): string {
  const date = new Date(seconds * 1000);
  const day = date.toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone });
  const time = date.toLocaleTimeString('en-GB', {
    hour: '2-digit',
    minute: '2-digit',
    timeZone,
    timeZoneName: 'short',
  });
  return `${day}, ${time}`;
}
