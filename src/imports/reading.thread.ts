// The thread an import's file is read in (src/imports/reading.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { readInThisThread, type ReadRequest } from './reading.ts';

await readInThisThread(workerData as ReadRequest, parentPort!);
