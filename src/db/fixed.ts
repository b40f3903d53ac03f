// Statements of the hottest paths (every authenticated request, every page of items), compiled
// by Kysely once per shape instead of on every call. Building a query and compiling it is work on
// a tree of objects, each frozen as it is made: on a private page it was a few per cent of the
// request's CPU time and of what its garbage collection had to sweep (docs/design.md "Fixed
// statements").
import { CompiledQuery } from 'kysely';
import type { Db } from './database.ts';

/** Where a fixed statement's builder puts the `index`th argument of the call. */
class Slot {
  readonly index: number;
  constructor(index: number) {
    this.index = index;
  }
}

/** The `index`th argument of a fixed statement's call, in its builder. */
export function slot<T = unknown>(index: number): T {
  return new Slot(index) as T;
}

interface Compiled {
  sql: string;
  /** For each parameter of `sql`, the argument it takes. */
  slots: number[];
}

/** Shapes kept per database, at most; the oldest is dropped first. */
const SHAPES_MAX = 256;
const compiled = new WeakMap<Db, Map<string, Compiled>>();

function slotsOf({ sql, parameters }: CompiledQuery<unknown>): Compiled {
  const slots = parameters.map((parameter) => {
    // A value that is not a slot would be the first call's, given to every later one.
    if (!(parameter instanceof Slot)) throw new Error(`a fixed statement holds a value: ${sql}`);
    return parameter.index;
  });
  return { sql, slots };
}

/**
 * Runs the statement `build` compiles, with `args`. `shape` names everything that decides its
 * SQL text (which table, which conditions); the builder runs once per shape and database, with
 * `slot(i)` wherever the statement takes a value, and later calls of that shape reuse its SQL.
 * A transaction is a database of its own here: its statements are compiled as they come.
 */
export async function runFixed<Row>(
  db: Db,
  shape: string,
  build: () => CompiledQuery<Row>,
  args: readonly unknown[],
): Promise<Row[]> {
  let shapes = compiled.get(db);
  if (!shapes) compiled.set(db, (shapes = new Map<string, Compiled>()));
  let found = shapes.get(shape);
  if (!found) {
    found = slotsOf(build());
    if (shapes.size >= SHAPES_MAX) shapes.delete(shapes.keys().next().value!);
    shapes.set(shape, found);
  }
  const parameters = found.slots.map((index) => args[index]);
  const { rows } = await db.executeQuery<Row>(CompiledQuery.raw(found.sql, parameters));
  return rows;
}
