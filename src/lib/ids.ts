import { ulid } from 'ulid';

/**
 * A new object id: a ULID, 48 bits of time then 80 random bits (API.md: "unguessable, at least
 * 80 random bits, never reused"). Not the monotonic variant, whose random part counts up
 * within a millisecond and so could be guessed from a neighbour.
 */
export function newId(): string {
  return ulid();
}
