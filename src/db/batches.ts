// Handing out rows a batch at a time (keyset reads of long histories: downloads, exports,
// statistics). docs/history.md "Downloads" has the measurements.

/**
 * Yields one batch and empties it when the consumer asks for the next one (or stops): a batch
 * lasts until then. On PostgreSQL the driver's result object that held the rows has often
 * lived through a young collection while they arrived, and an object in the old generation
 * keeps whatever it refers to alive through every young collection until a full one: each row
 * was promoted, and a million-point download grew the old generation by 364 MB between full
 * collections. With the batch emptied, by 8.5 MB.
 */
export async function* lend<T>(batch: T[]): AsyncGenerator<T[], void, undefined> {
  try {
    yield batch;
  } finally {
    batch.length = 0;
  }
}

/** Where a keyset read goes on from: the last row's `(time, id)`. */
export interface Keyset {
  time: number;
  id: string;
}

/**
 * Every row `read` returns, batch after batch: each read gets the key of the last row before
 * it (none the first time) and returns at most `size` rows in `(time, id)` order; a shorter
 * batch is the last. Each batch is lent (`lend`).
 */
export async function* keysetBatches<R extends Keyset>(
  read: (after: Keyset | undefined) => Promise<R[]>,
  size: number,
): AsyncGenerator<R[], void, undefined> {
  let after: Keyset | undefined;
  for (;;) {
    const rows = await read(after);
    const last = rows.at(-1);
    if (!last) return;
    after = { time: last.time, id: last.id };
    const more = rows.length === size;
    yield* lend(rows);
    if (!more) return;
  }
}
