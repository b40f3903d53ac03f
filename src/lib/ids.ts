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

/** 80 random bits as 16 characters. */
function random80(): string {
  if (offset + 10 > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const text = base32(pool.readUIntBE(offset, 5), 8) + base32(pool.readUIntBE(offset + 5, 5), 8);
  offset += 10;
  return text;
}

/**
 * A new object id: a ULID, 48 bits of time then 80 random bits (docs/api.md: "at least 80
 * random bits, never reused"). Not the monotonic variant, whose random part counts up within a
 * millisecond and so could be guessed from a neighbour.
 */
export function newId(): string {
  return base32(Date.now(), 10) + random80();
}

/** `count` new ids made at one instant, for bulk writes (an import stores millions of points). */
export function newIds(count: number, now = Date.now()): string[] {
  const time = base32(now, 10);
  const ids = new Array<string>(count);
  for (let n = 0; n < count; n += 1) ids[n] = time + random80();
  return ids;
}
