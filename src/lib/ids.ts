import { randomFillSync } from 'node:crypto';

// Crockford's base32, as ULID writes it (github.com/ulid/spec).
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

// Random bytes are drawn from the CSPRNG in blocks and each used once: the `ulid` package asks
// for one byte per character, which made ids most of the CPU cost of storing a batch of
// points (measured: 35 us an id, 3.5 ms a 100-point batch, BENCHMARKS.md).
const pool = Buffer.alloc(10 * 512);
let offset = pool.length;

/** `count` characters of base32 for `value` (an integer below 2^53), most significant first. */
function base32(value: number, count: number): string {
  let text = '';
  for (let i = 0; i < count; i += 1) {
    text = ALPHABET[value % 32]! + text;
    value = Math.floor(value / 32);
  }
  return text;
}

/** 40 random bits as a number. */
function random40(): number {
  const value = pool.readUIntBE(offset, 5);
  offset += 5;
  return value;
}

/**
 * A new object id: a ULID, 48 bits of time then 80 random bits (API.md: "unguessable, at least
 * 80 random bits, never reused"). Not the monotonic variant, whose random part counts up
 * within a millisecond and so could be guessed from a neighbour.
 */
export function newId(): string {
  if (offset + 10 > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  return base32(Date.now(), 10) + base32(random40(), 8) + base32(random40(), 8);
}
