import { randomBytes } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * A new object id: a ULID, 48 bits of time then 80 random bits (docs/api.md: "at least 80
 * random bits, never reused"). Not the monotonic variant, whose random part counts up within a
 * millisecond and so could be guessed from a neighbour.
 */
export function newId(): string {
  return newIds(1)[0]!;
}
/**
 * `count` new ids at once, for bulk writes (an import stores millions of points): the same ULIDs
 * as newId(), their 80 random bits taken from one buffer of the system's CSPRNG instead of one
 * call per character, which costs more than the insert of the row.
 */
export function newIds(count: number, now = Date.now()): string[] {
  let time = '';
  for (let t = now, i = 0; i < 10; i++, t = Math.floor(t / 32)) time = CROCKFORD[t % 32]! + time;
  const random = randomBytes(count * 10);
  const ids = new Array<string>(count);
  for (let n = 0; n < count; n++) {
    let id = time;
    // 10 bytes are 80 bits: two 40-bit halves, each eight 5-bit characters.
    for (let half = 0; half < 2; half++) {
      const o = n * 10 + half * 5;
      let bits = random[o]! * 2 ** 32 + random.readUInt32BE(o + 1);
      let chars = '';
      for (let c = 0; c < 8; c++, bits = Math.floor(bits / 32)) chars = CROCKFORD[bits % 32]! + chars;
      id += chars;
    }
    ids[n] = id;
  }
  return ids;
}
