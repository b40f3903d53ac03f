// Local time from a zone's offset spans agrees with asking Intl, at every quarter hour around
// the changes of zones that move by an hour, by half an hour, or sit at a 45-minute offset.
import { describe, expect, it } from 'vitest';
import { zonedToUtc, zonedToUtcIn } from '../lib/time.ts';
import { offsetSpans } from './geo.ts';

const QUARTER = 15 * 60_000;
const DAY = 86_400_000;

describe('zonedToUtcIn', () => {
  for (const zone of ['Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'UTC']) {
    it(`gives zonedToUtc's instant in ${zone}, gaps and repeated hours included`, () => {
      const from = Date.UTC(2015, 0, 1);
      const to = Date.UTC(2017, 0, 1);
      const spans = offsetSpans(from - DAY, to + DAY, zone);
      let compared = 0;
      for (const span of spans.slice(1)) {
        // Every quarter hour of wall time within two days of each change.
        for (let wall = span.start - 2 * DAY; wall <= span.start + 2 * DAY; wall += QUARTER) {
          expect(zonedToUtcIn(wall, spans)).toBe(zonedToUtc(wall, zone));
          compared += 1;
        }
      }
      // And every month's first midnight.
      for (let month = 0; month < 24; month += 1) {
        const wall = Date.UTC(2015, month, 1);
        expect(zonedToUtcIn(wall, spans)).toBe(zonedToUtc(wall, zone));
      }
      expect(compared).toBe(zone === 'UTC' || zone === 'Asia/Kathmandu' ? 0 : 4 * 385);
    });
  }
});
