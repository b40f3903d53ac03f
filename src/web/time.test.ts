// The pages' days and clocks in the person's zone, around a change of daylight saving time.
import { describe, expect, it } from 'vitest';
import { addDays, clockOf, dayBounds, dayOf, endOfDay } from './time.ts';

describe('days and clocks of the pages', () => {
  it('read the wall clock of the zone, across a change of offset', () => {
    // 2026-03-29 01:00 UTC: Berlin moves from +01:00 to +02:00.
    expect([
      dayOf(Date.parse('2026-03-28T23:30:00Z'), 'Europe/Berlin'),
      clockOf(Date.parse('2026-03-28T23:30:00Z'), 'Europe/Berlin'),
    ]).toEqual(['2026-03-29', '00:30']);
    expect(clockOf(Date.parse('2026-03-29T01:30:00Z'), 'Europe/Berlin')).toBe('03:30');
    expect([
      dayOf(Date.parse('2026-11-23T18:20:00Z'), 'Asia/Kathmandu'),
      clockOf(Date.parse('2026-11-23T18:20:00Z'), 'Asia/Kathmandu'),
    ]).toEqual(['2026-11-24', '00:05']);
  });

  it('end a day at the next local midnight, 23 hours on the day the clocks go forward', () => {
    expect(endOfDay('2026-03-28', 'Europe/Berlin')).toBe(Date.parse('2026-03-28T23:00:00Z'));
    expect(endOfDay('2026-03-29', 'Europe/Berlin')).toBe(Date.parse('2026-03-29T22:00:00Z'));
    expect(endOfDay('29 March 2026', 'Europe/Berlin')).toBe(undefined);
  });

  it('bound a day by its local midnights, and refuse what is no day of the calendar', () => {
    expect(dayBounds('2026-03-29', 'Europe/Berlin')).toEqual({
      start: Date.parse('2026-03-28T23:00:00Z'),
      end: Date.parse('2026-03-29T22:00:00Z'),
    });
    expect(dayBounds('2026-10-25', 'Europe/Berlin')).toEqual({
      start: Date.parse('2026-10-24T22:00:00Z'),
      end: Date.parse('2026-10-25T23:00:00Z'),
    });
    for (const day of ['2026-02-29', '2026-13-01', '0099-01-01', '26-3-29']) {
      expect(dayBounds(day, 'Europe/Berlin')).toBe(undefined);
    }
    expect([addDays('2024-02-28', 1), addDays('2024-03-01', -1), addDays('2024-12-31', 1)]).toEqual([
      '2024-02-29',
      '2024-02-29',
      '2025-01-01',
    ]);
  });
});
