// Which format a file is, from its first bytes (docs/imports.md "Detection"): the first keys of
// a JSON document, the root element of an XML one, the header of a CSV file, the first line of
// an OwnTracks .rec file, and for a zip the first entry in one of those. What is none of them
// is described, for the 400 that refuses it.
import { fileTypeFromBuffer } from 'file-type';
import { open } from 'node:fs/promises';
import { ENTRIES, EXPORT_FORMAT, EXPORT_MARKER } from '../archive/format.ts';
import { csvHeader } from './readers/csv.ts';
import type { FormatName } from './readers/formats.ts';
import {
  entryHead,
  entryName,
  entryRefusal,
  isDirectory,
  isMacMetadata,
  isZip,
  openZip,
  ZIP_LIMITS,
} from '../lib/zipfile.ts';

/** How much of a file detection reads. */
export const HEAD_BYTES = 64 * 1024;

export type Detection = { format: FormatName } | { format: null; seen: string };
/** What a file is: a location format, a Waypost export to restore, or neither. */
export type FileDetection = Detection | { format: typeof EXPORT_FORMAT };

const TIMELINE_KEYS = new Set(['semanticSegments', 'rawSignals', 'userLocationProfile']);

function firstKey(json: string): string | undefined {
  return /^\{\s*"((?:[^"\\]|\\.)*)"\s*:/.exec(json)?.[1];
}

function detectJson(json: string): Detection {
  if (json.startsWith('[')) {
    // The iOS Timeline export: an array of segments with start and end times.
    if (
      /^\[\s*\{/.test(json) &&
      /"(startTime|endTime)"\s*:/.test(json) &&
      /"(visit|activity|timelinePath)"\s*:/.test(json)
    ) {
      return { format: 'google-timeline' };
    }
    return { format: null, seen: 'a JSON array' };
  }
  const key = firstKey(json);
  if (key === 'locations') return { format: 'google-records' };
  if (key === 'timelineObjects') return { format: 'google-semantic' };
  if (key !== undefined && TIMELINE_KEYS.has(key)) return { format: 'google-timeline' };
  // GeoJSON's members come in any order ("type", "name", "crs", "bbox", "features"...).
  if (/"type"\s*:\s*"FeatureCollection"/.test(json) || (key === 'features' && /"type"\s*:\s*"Feature"/.test(json))) {
    return { format: 'geojson' };
  }
  return { format: null, seen: key === undefined ? 'a JSON object' : `a JSON object whose first field is "${key}"` };
}

function rootElement(xml: string): string | undefined {
  // Past the declaration, comments, processing instructions and a doctype.
  const rest = xml.replace(/^(\s*(<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>]*>))*\s*/i, '');
  return /^<([A-Za-z_][\w.:-]*)/.exec(rest)?.[1];
}

const XML_ROOTS: Record<string, FormatName> = { gpx: 'gpx', kml: 'kml', TrainingCenterDatabase: 'tcx' };

function detectXml(xml: string): Detection {
  const root = rootElement(xml);
  const format = root && XML_ROOTS[root.slice(root.indexOf(':') + 1)];
  if (format) return { format };
  return { format: null, seen: root ? `XML whose root element is <${root}>` : 'XML' };
}

const OWNTRACKS_LINE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z\t[^\t]*\t\s*\{/;

function detectText(text: string): Detection | undefined {
  const firstLine = text.split('\n')[0]?.replace(/\r$/, '') ?? '';
  if (OWNTRACKS_LINE.test(firstLine)) return { format: 'owntracks' };
  if (csvHeader(firstLine)) return { format: 'csv' };
  return undefined;
}

async function describeBinary(head: Uint8Array): Promise<string> {
  const type = await fileTypeFromBuffer(head).catch(() => undefined);
  return type ? `a ${type.ext.toUpperCase()} file (${type.mime})` : 'binary data';
}

/** The format of a file whose first bytes are `head` (up to HEAD_BYTES); a zip is only named so. */
export async function detectHead(head: Uint8Array): Promise<Detection> {
  if (head.length === 0) return { format: null, seen: 'an empty file' };
  if (isZip(head)) return { format: 'zip' };
  const bom = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  const body = head.subarray(bom);
  if (body.includes(0)) return { format: null, seen: await describeBinary(head) };
  const text = new TextDecoder('utf-8', { fatal: false }).decode(body).trimStart();
  if (text.startsWith('{') || text.startsWith('[')) return detectJson(text);
  if (text.startsWith('<')) return detectXml(text);
  const found = detectText(text);
  if (found) return found;
  const type = await fileTypeFromBuffer(head).catch(() => undefined);
  if (type) return { format: null, seen: `a ${type.ext.toUpperCase()} file (${type.mime})` };
  return { format: null, seen: 'text in none of the formats' };
}

/** The first HEAD_BYTES of a file. */
export async function readHead(path: string): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * A zip is a location file when an entry is one: `kmz` when that entry is KML and the zip holds
 * `doc.kml` or is named .kmz, `zip` otherwise. The entries are looked at until one is found.
 */
async function detectZip(path: string, filename: string): Promise<FileDetection> {
  let zip;
  try {
    zip = await openZip(path);
  } catch {
    return { format: null, seen: 'a damaged zip archive' };
  }
  try {
    let count = 0;
    const names: string[] = [];
    for await (const entry of zip.eachEntry()) {
      const name = entryName(entry);
      if (isDirectory(name) || isMacMetadata(name) || entryRefusal(entry)) continue;
      if (++count > ZIP_LIMITS.entries)
        return { format: null, seen: `a zip archive of more than ${ZIP_LIMITS.entries} files` };
      names.push(name);
      const head = await entryHead(zip, entry, HEAD_BYTES);
      // A Waypost export says so in the first line of its README.txt.
      if (name === ENTRIES.readme && EXPORT_MARKER.test(head.toString('utf8'))) return { format: EXPORT_FORMAT };
      const found = await detectHead(head);
      if (found.format === 'kml' && (name === 'doc.kml' || /\.kmz$/i.test(filename))) return { format: 'kmz' };
      if (found.format && found.format !== 'zip') return { format: 'zip' };
    }
    return {
      format: null,
      seen: count === 0 ? 'a zip archive with no files' : `a zip archive whose ${count} files are none of the formats`,
    };
  } catch {
    return { format: null, seen: 'a damaged zip archive' };
  } finally {
    zip.close();
  }
}

/** The format of the file at `path` (uploaded as `filename`). */
export async function detectFile(path: string, filename = ''): Promise<FileDetection> {
  const detection = await detectHead(await readHead(path));
  return detection.format === 'zip' ? detectZip(path, filename) : detection;
}
