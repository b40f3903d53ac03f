// An import's file is read in a thread of its own while the import stores what was read before
// (docs/imports.md "Reading beside storing"). Reading a file and storing its points each take
// about as long as the other; one after the other, an import took their sum, side by side it
// takes the longer of the two.
//
// The thread runs the format's reader over the file and counts its records as the import does:
// the records an earlier run committed are skipped, points go into a batch, skipped points and
// the file's errors are counted. It hands over a batch every `batchRecords` records, with the
// counts and errors since the last one, and never holds more than two batches: a batch's arrays
// go to the import and come back when it was stored, so a thread that reads faster than the
// database stores waits for them, and memory stays that of two batches.
import { createReadStream } from 'node:fs';
import { getHeapStatistics } from 'node:v8';
import { Worker, type MessagePort } from 'node:worker_threads';
import { PointBatch } from './point-batch.ts';
import type { FormatName } from './readers/formats.ts';
import { readers } from './readers/index.ts';

/** What the thread is asked to read. */
export interface ReadRequest {
  format: FormatName;
  /** The file on this machine. */
  path: string;
  /** The name the person uploaded it under, for `where` in errors. */
  name: string;
  size: number;
  /** Records committed by earlier runs: read past, not counted again. */
  skip: number;
  batchRecords: number;
  /** How many more of the file's errors the import keeps. */
  errorRoom: number;
}

export interface ReadError {
  where: string;
  message: string;
}

/** The records read since the last batch. */
export interface ReadBatch {
  points: PointBatch;
  /** Records of every kind (the checkpoint moves by this many). */
  records: number;
  /** Points, stored or skipped. */
  seen: number;
  skipped: number;
  errors: ReadError[];
  /** How far through the file the reader is, 0 to 1. */
  progress: number;
}

/** The thread ran out of memory reading the file: it was stopped, as a process past its heap limit would be. */
export class ReadingOutOfMemory extends Error {
  constructor(heapMb: number) {
    super(`ran out of memory reading the file (its heap limit is ${heapMb} MiB)`);
    this.name = 'ReadingOutOfMemory';
  }
}

type FromThread =
  | { batch: Omit<ReadBatch, 'points'> & { columns: Float64Array[]; length: number } }
  | { end: true }
  | { error: { message: string; name: string; permanent: boolean; code?: string } };

/** Batches in flight at once: one being stored, one being filled. */
const BATCHES = 2;

const transfer = (columns: Float64Array[]) => columns.map((column) => column.buffer as ArrayBuffer);

/**
 * The file's records, a batch at a time, read in a thread. Give each batch back with `release`
 * once it is stored: the thread refills its arrays. Stopping early (a cancelled import, a failed
 * commit) ends the thread.
 */
export async function* readBatches(
  request: ReadRequest,
): AsyncGenerator<ReadBatch & { release: () => void }, void, undefined> {
  // The thread may use as much heap as this process (the import worker's own limit).
  const heapMb = Math.round(getHeapStatistics().heap_size_limit / 1024 ** 2);
  const worker = new Worker(new URL('./reading.thread.ts', import.meta.url), {
    workerData: request,
    resourceLimits: { maxOldGenerationSizeMb: heapMb },
    stdout: false,
    stderr: false,
  });
  const queue: FromThread[] = [];
  let wake: (() => void) | undefined;
  let failure: Error | undefined;
  const arrived = () => {
    wake?.();
    wake = undefined;
  };
  worker.on('message', (message: FromThread) => {
    queue.push(message);
    arrived();
  });
  worker.on('error', (error: NodeJS.ErrnoException) => {
    failure = error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? new ReadingOutOfMemory(heapMb) : error;
    arrived();
  });
  worker.on('exit', () => {
    failure ??= new Error('the reading thread ended before the file did');
    arrived();
  });
  try {
    for (;;) {
      const message = queue.shift();
      if (!message) {
        if (failure) throw failure;
        await new Promise<void>((resolve) => (wake = resolve));
        continue;
      }
      if ('end' in message) return;
      if ('error' in message) {
        const { message: text, ...rest } = message.error;
        throw Object.assign(new Error(text), rest);
      }
      const { columns, length, ...counts } = message.batch;
      yield {
        ...counts,
        points: new PointBatch(columns, length),
        release: () => worker.postMessage({ give: columns }, transfer(columns)),
      };
    }
  } finally {
    worker.removeAllListeners();
    // Whatever the thread still says while it is stopped is of no use now, and must not throw.
    worker.on('error', () => {});
    await worker.terminate();
  }
}

async function* fileBytes(path: string, onBytes: (n: number) => void): AsyncIterable<Uint8Array> {
  for await (const chunk of createReadStream(path, { highWaterMark: 256 * 1024 }) as AsyncIterable<Buffer>) {
    onBytes(chunk.length);
    yield chunk;
  }
}

/** The thread's side: reads the file and posts its batches to `port` (src/imports/reading.thread.ts). */
export async function readInThisThread(request: ReadRequest, port: MessagePort): Promise<void> {
  const free: PointBatch[] = Array.from({ length: BATCHES }, () => new PointBatch(request.batchRecords));
  let given: (() => void) | undefined;
  port.on('message', ({ give }: { give: Float64Array[] }) => {
    free.push(new PointBatch(give, 0));
    given?.();
    given = undefined;
  });
  const nextBatch = async (): Promise<PointBatch> => {
    while (free.length === 0) await new Promise<void>((resolve) => (given = resolve));
    const batch = free.pop()!;
    batch.clear();
    return batch;
  };

  let bytesRead = 0;
  let fraction: number | undefined;
  let errorRoom = request.errorRoom;
  let position = 0;
  let points = await nextBatch();
  let counts = { records: 0, seen: 0, skipped: 0, errors: [] as ReadError[] };
  const post = () => {
    const progress = Math.min(1, fraction ?? (request.size > 0 ? bytesRead / request.size : 1));
    const { columns, length } = points;
    port.postMessage({ batch: { ...counts, progress, columns, length } }, transfer(columns));
    counts = { records: 0, seen: 0, skipped: 0, errors: [] };
  };

  const input = {
    bytes: fileBytes(request.path, (n) => (bytesRead += n)),
    name: request.name,
    path: request.path,
    progress: (f: number) => (fraction = f),
  };
  try {
    for await (const records of readers[request.format].read(input)) {
      for (const record of records) {
        if (position++ < request.skip) continue;
        counts.records += 1;
        if (record.kind === 'point') {
          counts.seen += 1;
          points.push(record);
        } else {
          if (record.kind === 'skip') {
            counts.seen += 1;
            counts.skipped += 1;
          }
          if (record.message !== undefined && errorRoom > 0) {
            errorRoom -= 1;
            counts.errors.push({ where: record.where ?? request.name, message: record.message });
          }
        }
        if (counts.records >= request.batchRecords) {
          post();
          points = await nextBatch();
        }
      }
    }
    if (counts.records > 0) post();
    port.postMessage({ end: true });
  } catch (error) {
    const failed = error instanceof Error ? error : new Error(String(error));
    const { permanent, code } = failed as { permanent?: unknown; code?: unknown };
    const about = { message: failed.message, name: failed.name, permanent: permanent === true };
    port.postMessage({ error: typeof code === 'string' ? { ...about, code } : about });
  }
  // The port stays open: the import ends the thread once it has read every message.
}
