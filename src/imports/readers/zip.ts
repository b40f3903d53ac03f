// A zip archive holding location files: a Google Takeout (Records.json, the Semantic Location
// History months, GPX and KML files...) or a KMZ (doc.kml and its images). Every entry in a
// format this server reads (detected from its own first bytes) is imported in archive order;
// entries in no such format, zips inside the zip and entries past the limits are listed in
// the import's errors and passed over.
import { detectHead, HEAD_BYTES } from '../detect.ts';
import type { FormatName } from './formats.ts';
import { messageOf } from '../../lib/message-of.ts';
import {
  entryName,
  entryRefusal,
  isDirectory,
  isMacMetadata,
  openEntry,
  openZip,
  ZIP_LIMITS,
} from '../../lib/zipfile.ts';
import { peek, type ImportRecord, type Reader } from './reader.ts';

export function zipReader(registry: () => Record<FormatName, Reader>): Reader {
  return {
    async *read(input) {
      if (!input.path) throw new Error('a zip is read from a file');
      const zip = await openZip(input.path).catch((error: unknown) => new Error(messageOf(error)));
      if (zip instanceof Error) {
        yield [
          {
            kind: 'error',
            where: input.name,
            message: `the zip archive is damaged (${zip.message}); nothing was read`,
          },
        ];
        return;
      }
      try {
        let count = 0;
        for await (const entry of zip.eachEntry()) {
          const name = entryName(entry);
          if (isDirectory(name) || isMacMetadata(name)) continue;
          const where = `${input.name}: ${name}`;
          if (++count > ZIP_LIMITS.entries) {
            yield [
              {
                kind: 'error',
                where: input.name,
                message: `holds more than ${ZIP_LIMITS.entries} files; the rest were not read`,
              },
            ];
            break;
          }
          const refusal = entryRefusal(entry);
          if (refusal) {
            yield [{ kind: 'error', where, message: refusal }];
            continue;
          }
          const stream = await openEntry(zip, entry);
          let read = 0;
          const counted = (async function* () {
            for await (const chunk of stream as AsyncIterable<Buffer>) {
              read += chunk.length;
              input.progress?.(
                (entry.relativeOffsetOfLocalHeader +
                  (entry.compressedSize * read) / Math.max(1, entry.uncompressedSize)) /
                  Math.max(1, zip.fileSize),
              );
              yield chunk;
            }
          })();
          try {
            const { head, all } = await peek(counted, HEAD_BYTES);
            const detection = await detectHead(head);
            if (!detection.format || detection.format === 'zip' || detection.format === 'kmz') {
              const seen = detection.format ? 'a zip inside the zip' : detection.seen;
              yield [{ kind: 'error', where, message: `is ${seen}, not a location file; not read` }];
              continue;
            }
            for await (const records of registry()[detection.format].read({ bytes: all, name })) yield records;
          } catch (error) {
            const record: ImportRecord = { kind: 'error', where, message: `could not be read (${messageOf(error)})` };
            yield [record];
          } finally {
            stream.destroy();
          }
        }
      } catch (error) {
        yield [
          {
            kind: 'error',
            where: input.name,
            message: `the zip archive is damaged or ends early (${messageOf(error)}); the files before were read`,
          },
        ];
      } finally {
        zip.close();
      }
    },
  };
}
