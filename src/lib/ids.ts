import { randomFillSync } from 'node:crypto';
import { ulid } from 'ulid';

// Random bytes drawn from the operating system 4 KiB at a time: the ulid package asks its PRNG
// once per character, and one getrandom call per character was a third of the CPU of a batch
// of 1000 points (profile in BENCHMARKS.md). Each byte is used once.
const pool = new Uint8Array(4096);
let next = pool.length;

/** A uniform fraction in [0, 1) with 8 random bits: ulid takes 5 of them per character (256 / 32). */
function randomFraction(): number {
  if (next === pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  return pool[next++]! / 256;
}

/**
 * A new object id: a ULID, 48 bits of time then 80 random bits (docs/api.md: "at least 80
 * random bits, never reused"). Not the monotonic variant, whose random part counts up within a
 * millisecond and so could be guessed from a neighbour.
 */
export function newId(): string {
  return ulid(undefined, randomFraction);
}
