// The two strings ffprobe hands over that we parse ourselves: a recording time and an ISO 6709
// point, in the forms cameras and phones write them, and the ones that must come out null.
import { describe, expect, it } from 'vitest';
import { avFacts, parseIso6709, recordedMs } from './media.ffprobe.ts';

describe('recordedMs', () => {
  it.each([
    ['2024-05-01T10:00:00.000000Z', Date.UTC(2024, 4, 1, 10)],
    ['2024-05-01T10:00:00Z', Date.UTC(2024, 4, 1, 10)],
    ['2024-05-01 10:00:00', Date.UTC(2024, 4, 1, 10)], // no zone: UTC, as QuickTime and Matroska store it
    ['2024-05-01T12:00:00+0200', Date.UTC(2024, 4, 1, 10)], // Apple's creation date, local with its offset
    ['2024-05-01T05:30:00-04:30', Date.UTC(2024, 4, 1, 10)],
    ['2024-05-01T10:00:00.250Z', Date.UTC(2024, 4, 1, 10) + 250],
  ])('%s', (raw, expected) => expect(recordedMs(raw)).toBe(expected));

  it.each([
    undefined,
    '',
    'yesterday',
    '2024-13-01T10:00:00Z',
    '2024-05-01T25:00:00Z',
    '1970-01-01T00:00:00Z', // a camera without a clock
    '1904-01-01T00:00:00Z', // QuickTime's zero
  ])('%s is no time', (raw) => expect(recordedMs(raw)).toBeNull());
});

describe('parseIso6709', () => {
  it.each([
    ['+48.8584+002.2945/', 48.8584, 2.2945],
    ['-33.8568+151.2153+005.000/', -33.8568, 151.2153], // with altitude
    ['+40.6894-074.0447CRSWGS_84/', 40.6894, -74.0447], // with a reference system
    ['+4851.504+00217.67/', 48 + 51.504 / 60, 2 + 17.67 / 60], // degrees and minutes
    ['+485130.2-0741750.5/', 48 + 51 / 60 + 30.2 / 3600, -(74 + 17 / 60 + 50.5 / 3600)], // and seconds
    ['+48.8584+002.2945', 48.8584, 2.2945], // no terminator
  ])('%s', (raw, lat, lon) => {
    const point = parseIso6709(raw);
    expect(point?.lat).toBeCloseTo(lat, 9);
    expect(point?.lon).toBeCloseTo(lon, 9);
  });

  it.each([
    undefined,
    '',
    'Paris',
    '+91.0000+002.0000/', // latitude out of range
    '+48.0000+181.0000/', // longitude out of range
    '+4875.00+00217.67/', // 75 minutes
    '+485.5+002.2/', // three digits of latitude fit no form
    '48.8584 2.2945',
  ])('%s is no place', (raw) => expect(parseIso6709(raw)).toBeNull());
});

describe('avFacts', () => {
  const video = (extra: object) => ({ codec_type: 'video', width: 1920, height: 1080, ...extra });

  it('swaps width and height for a quarter turn, from the display matrix or the older rotate tag', () => {
    for (const stream of [
      video({ side_data_list: [{ rotation: -90 }] }),
      video({ side_data_list: [{ rotation: 270 }] }),
      video({ tags: { rotate: '90' } }),
    ]) {
      expect(avFacts({ streams: [stream] }, 'video')).toMatchObject({ width: 1080, height: 1920 });
    }
    const upsideDown = video({ side_data_list: [{ rotation: 180 }] });
    expect(avFacts({ streams: [upsideDown] }, 'video')).toMatchObject({ width: 1920, height: 1080 });
  });

  it('skips cover art for the size, and gives audio none; the duration falls back to the longest stream', () => {
    const cover = video({ width: 600, height: 600, disposition: { attached_pic: 1 } });
    const facts = avFacts({ streams: [cover, { codec_type: 'audio', duration: '3.5' }] }, 'video');
    expect(facts).toEqual({ durationS: 3.5, width: null, height: null, takenMs: null, location: null });
    const song = avFacts({ format: { duration: '200.1' }, streams: [video({})] }, 'audio');
    expect(song).toMatchObject({ durationS: 200.1, width: null, height: null });
  });
});
