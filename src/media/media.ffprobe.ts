// What ffprobe says about a video or audio file: how long it lasts, its size as displayed, when
// it was recorded and where. Whatever is missing or out of range stays null.
import { inputArgs, run } from './media.ffmpeg.ts';

export interface AvFacts {
  durationS: number | null;
  width: number | null;
  height: number | null;
  takenMs: number | null;
  location: { lat: number; lon: number } | null;
}

const NONE: AvFacts = { durationS: null, width: null, height: null, takenMs: null, location: null };

interface ProbeStream {
  codec_type?: string;
  width?: number;
  height?: number;
  duration?: string;
  disposition?: { attached_pic?: number };
  tags?: Record<string, string>;
  side_data_list?: { rotation?: number }[];
}

interface ProbeOutput {
  format?: { duration?: string; tags?: Record<string, string> };
  streams?: ProbeStream[];
}

/** A positive number of seconds, or null. */
function seconds(raw: string | undefined): number | null {
  const value = Number(raw);
  return raw !== undefined && Number.isFinite(value) && value > 0 ? value : null;
}

/** Tags by lower-case name, so `Location` and `location` are one. */
function tagsOf(tags: Record<string, string> | undefined): Map<string, string> {
  return new Map(Object.entries(tags ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
}

/**
 * A recording time: ISO 8601 with `Z` or an offset; without one it is UTC, which is what
 * QuickTime and Matroska store. Only after 1970: a camera without a clock writes zero (1970,
 * or 1904 in QuickTime's epoch).
 */
export function recordedMs(raw: string | undefined): number | null {
  const match =
    raw && /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:?\d{2})?$/.exec(raw.trim());
  if (!match) return null;
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0] = match.slice(1, 7).map(Number);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return null;
  const zone = match[8] ?? 'Z';
  const offsetMin =
    zone === 'Z' ? 0 : (zone[0] === '-' ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(-2)));
  const ms = Date.UTC(year, month - 1, day, hour, minute, second) + Math.round(Number(match[7] ?? 0) * 1000);
  const utc = ms - offsetMin * 60_000;
  return utc > 0 ? utc : null;
}

/** Degrees from an ISO 6709 number: ±DD.D, ±DDMM.M or ±DDDMMSS.S, told apart by the digits before the point. */
function angle(raw: string, degreeDigits: number): number | null {
  const [whole = '', fraction = ''] = raw.slice(1).split('.');
  const sign = raw.startsWith('-') ? -1 : 1;
  const tail = Number(`0.${fraction || '0'}`);
  const parts = [degreeDigits, degreeDigits + 2, degreeDigits + 4];
  if (!parts.includes(whole.length)) return null;
  const degrees = Number(whole.slice(0, degreeDigits));
  const minutes = whole.length > degreeDigits ? Number(whole.slice(degreeDigits, degreeDigits + 2)) : 0;
  const secs = whole.length > degreeDigits + 2 ? Number(whole.slice(degreeDigits + 2)) : 0;
  if (minutes >= 60 || secs >= 60) return null;
  // The fraction belongs to the last unit written.
  const unit = whole.length === degreeDigits ? 1 : whole.length === degreeDigits + 2 ? 60 : 3600;
  return sign * (degrees + minutes / 60 + secs / 3600 + tail / unit);
}

/**
 * A point from ISO 6709 as phones write it: `+48.8584+002.2945/`, maybe with an altitude and a
 * reference system after it. Null unless latitude and longitude are in range.
 */
export function parseIso6709(raw: string | undefined): { lat: number; lon: number } | null {
  const match =
    raw && /^([+-]\d+(?:\.\d+)?)([+-]\d+(?:\.\d+)?)(?:[+-]\d+(?:\.\d+)?)?(?:CRS[^/]*)?\/?$/.exec(raw.trim());
  if (!match) return null;
  const lat = angle(match[1]!, 2);
  const lon = angle(match[2]!, 3);
  if (lat === null || lon === null || Math.abs(lat) > 90 || Math.abs(lon) > 180) return null;
  return { lat, lon };
}

/** Width and height as shown: a rotation of a quarter turn either way swaps them. */
function displayedSize(stream: ProbeStream | undefined): Pick<AvFacts, 'width' | 'height'> {
  const { width, height } = stream ?? {};
  if (!width || !height || width <= 0 || height <= 0) return { width: null, height: null };
  const rotation =
    stream?.side_data_list?.find((data) => typeof data.rotation === 'number')?.rotation ??
    Number(stream?.tags?.rotate ?? 0);
  return Math.abs(rotation) % 180 === 90 ? { width: height, height: width } : { width, height };
}

/** The facts in ffprobe's JSON (`-show_format -show_streams`); audio has no size. */
export function avFacts(output: ProbeOutput, kind: 'video' | 'audio'): AvFacts {
  const streams = output.streams ?? [];
  const tags = tagsOf(output.format?.tags);
  const longest = Math.max(0, ...streams.map((stream) => seconds(stream.duration) ?? 0));
  const video = streams.find((stream) => stream.codec_type === 'video' && stream.disposition?.attached_pic !== 1);
  const size = kind === 'video' ? displayedSize(video) : { width: null, height: null };
  return {
    durationS: seconds(output.format?.duration) ?? (longest > 0 ? longest : null),
    ...size,
    takenMs: recordedMs(tags.get('com.apple.quicktime.creationdate') ?? tags.get('creation_time')),
    location: parseIso6709(
      tags.get('com.apple.quicktime.location.iso6709') ?? tags.get('location') ?? tags.get('location-eng'),
    ),
  };
}

/** Runs ffprobe on a file of a type ffmpeg may read; every fact null when it cannot say. */
export async function probeAv(
  ffprobe: string | null,
  path: string,
  mimeType: string,
  kind: 'video' | 'audio',
): Promise<AvFacts> {
  const input = inputArgs(path, mimeType);
  if (!ffprobe || !input) return NONE;
  const args = ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', ...input];
  const result = await run(ffprobe, args, 30_000, 8 * 1024 * 1024);
  if (!result.ok) return NONE;
  try {
    return avFacts(JSON.parse(result.stdout.toString('utf8')) as ProbeOutput, kind);
  } catch {
    return NONE;
  }
}
