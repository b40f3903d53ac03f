// ffmpeg and ffprobe (Debian's `ffmpeg` package, README): video thumbnails, facts about video
// and audio, and their public copies without metadata. Spawned with argument arrays, never
// through a shell, each run bounded in time and output. They are optional: without them an
// upload still works, it just learns less.
import { execFile } from 'node:child_process';
import type { Config } from '../config.ts';

export interface MediaTools {
  /** The ffmpeg command, or null when it did not run at start. */
  ffmpeg: string | null;
  /** The ffprobe command, or null when it did not run at start. */
  ffprobe: string | null;
}

/** How a run ended; `missing` when the command itself could not be started. */
export type RunResult = { ok: true; stdout: Buffer } | { ok: false; missing: boolean };

export function run(command: string, args: string[], timeoutMs: number, maxBytes = 1024 * 1024): Promise<RunResult> {
  return new Promise((resolve) => {
    const options = {
      encoding: 'buffer' as const,
      timeout: timeoutMs,
      maxBuffer: maxBytes,
      killSignal: 'SIGKILL' as const,
    };
    execFile(command, args, options, (error, stdout) => {
      if (!error) return resolve({ ok: true, stdout });
      const code = (error as NodeJS.ErrnoException).code;
      resolve({ ok: false, missing: code === 'ENOENT' || code === 'EACCES' });
    });
  });
}

/** Which of the configured tools answer `-version`; the others are null. */
export async function findMediaTools(config: Pick<Config, 'ffmpegPath' | 'ffprobePath'>): Promise<MediaTools> {
  const answers = async (command: string) => ((await run(command, ['-version'], 10_000)).ok ? command : null);
  const [ffmpeg, ffprobe] = await Promise.all([answers(config.ffmpegPath), answers(config.ffprobePath)]);
  return { ffmpeg, ffprobe };
}

/** What the operator should hear at start when a tool is missing: what it costs, how to fix it. */
export function missingToolsWarning(config: Pick<Config, 'ffmpegPath' | 'ffprobePath'>, tools: MediaTools) {
  const costs = [
    tools.ffprobe ? [] : [`${config.ffprobePath} not found: video and audio get no duration, size, time or place`],
    tools.ffmpeg
      ? []
      : [`${config.ffmpegPath} not found: video gets no thumbnail, and public video and audio reach only their owner`],
  ].flat();
  if (costs.length === 0) return undefined;
  return `${costs.join('; ')}. Install ffmpeg, or set WAYPOST_FFMPEG_PATH and WAYPOST_FFPROBE_PATH.`;
}

/**
 * ffmpeg's demuxer and muxer for each sniffed type it can copy. The input is read only as the
 * format its bytes were sniffed as (`-f`), so a crafted file cannot be taken for a playlist that
 * pulls in other files or URLs (the HLS-in-AVI trick); other types are left alone.
 */
const FORMATS: Record<string, { demuxer: string; muxer: string }> = {
  'video/mp4': { demuxer: 'mov', muxer: 'mp4' },
  'video/x-m4v': { demuxer: 'mov', muxer: 'mp4' },
  'video/quicktime': { demuxer: 'mov', muxer: 'mov' },
  'video/3gpp': { demuxer: 'mov', muxer: '3gp' },
  'video/3gpp2': { demuxer: 'mov', muxer: '3g2' },
  'video/webm': { demuxer: 'matroska', muxer: 'webm' },
  'video/matroska': { demuxer: 'matroska', muxer: 'matroska' },
  'video/vnd.avi': { demuxer: 'avi', muxer: 'avi' },
  'video/mpeg': { demuxer: 'mpeg', muxer: 'mpeg' },
  'video/mp2t': { demuxer: 'mpegts', muxer: 'mpegts' },
  'video/ogg': { demuxer: 'ogg', muxer: 'ogg' },
  'video/x-flv': { demuxer: 'flv', muxer: 'flv' },
  'video/x-ms-asf': { demuxer: 'asf', muxer: 'asf' },
  'audio/x-ms-asf': { demuxer: 'asf', muxer: 'asf' },
  'audio/mpeg': { demuxer: 'mp3', muxer: 'mp3' },
  'audio/mp4': { demuxer: 'mov', muxer: 'ipod' },
  'audio/x-m4a': { demuxer: 'mov', muxer: 'ipod' },
  'audio/ogg': { demuxer: 'ogg', muxer: 'ogg' },
  'audio/wav': { demuxer: 'wav', muxer: 'wav' },
  'audio/flac': { demuxer: 'flac', muxer: 'flac' },
  'audio/aac': { demuxer: 'aac', muxer: 'adts' },
  'audio/aiff': { demuxer: 'aiff', muxer: 'aiff' },
  'audio/amr': { demuxer: 'amr', muxer: 'amr' },
  'audio/x-caf': { demuxer: 'caf', muxer: 'caf' },
  'audio/wavpack': { demuxer: 'wv', muxer: 'wv' },
};

/** The QuickTime family: its index goes to the front so a player can start before the end. */
const MOV_MUXERS = new Set(['mp4', 'mov', '3gp', '3g2', 'ipod']);

/** Input options naming a file by the format it was sniffed as; undefined for other types. */
export function inputArgs(path: string, mimeType: string): string[] | undefined {
  const format = FORMATS[mimeType];
  // `file:` so a name is never taken for another protocol.
  return format && ['-protocol_whitelist', 'file', '-f', format.demuxer, '-i', `file:${path}`];
}

/**
 * One frame as PNG, upright (ffmpeg applies the rotation it was recorded with), at most
 * `box` pixels on a side: taken at 1 s, or halfway through a shorter video, past a black
 * first frame.
 */
export async function videoFrame(
  ffmpeg: string,
  path: string,
  mimeType: string,
  durationS: number | null,
  box: number,
): Promise<Buffer | undefined> {
  const input = inputArgs(path, mimeType);
  if (!input) return undefined;
  const at = Math.min(1, (durationS ?? 0) / 2);
  const scale = `scale='min(${box},iw)':'min(${box},ih)':force_original_aspect_ratio=decrease`;
  const args = ['-v', 'error', '-nostdin', '-ss', at.toFixed(3), ...input];
  args.push('-frames:v', '1', '-vf', scale, '-c:v', 'png', '-f', 'image2pipe', 'pipe:1');
  const result = await run(ffmpeg, args, 30_000, 16 * 1024 * 1024);
  return result.ok && result.stdout.length > 0 ? result.stdout : undefined;
}

/**
 * Copies the streams of a video or audio file into `target` in the same format, without
 * metadata: no global or per-stream tags (creation time, place, device, encoder), no chapters,
 * no cover art and no data streams (a GoPro's GPS track, Apple's timed location metadata), and
 * no writer's version string (bitexact). The pictures and sound are copied, not re-encoded.
 */
export async function remuxWithoutMetadata(
  ffmpeg: string,
  source: string,
  mimeType: string,
  target: string,
): Promise<'ok' | 'failed' | 'missing'> {
  const input = inputArgs(source, mimeType);
  const format = FORMATS[mimeType];
  if (!input || !format) return 'failed';
  // 0:V is video that is not an attached picture; `?` because a file may lack the kind.
  const args = ['-v', 'error', '-nostdin', '-n', ...input, '-map', '0:V?', '-map', '0:a?', '-map', '0:s?'];
  args.push('-map_metadata', '-1', '-map_metadata:s', '-1', '-map_chapters', '-1', '-c', 'copy');
  args.push('-fflags', '+bitexact', '-flags:v', '+bitexact', '-flags:a', '+bitexact');
  if (MOV_MUXERS.has(format.muxer)) args.push('-movflags', '+faststart');
  args.push('-f', format.muxer, `file:${target}`);
  // A copy of a large file is disk-bound; the request that asked for it waits.
  const result = await run(ffmpeg, args, 300_000);
  if (result.ok) return 'ok';
  return result.missing ? 'missing' : 'failed';
}
