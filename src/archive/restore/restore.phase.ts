// What the kinds of a restore share (src/archive/restore/restore.run.ts): the run's state as
// each kind sees it, the counts per kind, reading the archive's files record by record, and
// checking a record against its schema in the format (src/archive/format.ts).
import type { Static, TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import type { Db } from '../../db/database.ts';
import { messageOf } from '../../lib/message-of.ts';
import type { MediaDeps } from '../../media/media.logic.ts';
import type { Storage } from '../../media/media.storage.ts';
import type { SecretKey } from '../../services/secrets.ts';
import { readJsonEntry, readLines, type ExportArchive, type Line } from './restore.read.ts';
import { resolveIds, type Resolved } from './restore.ids.ts';
import type { RestoredTable } from './restore.repo.ts';

export const RESTORED_KINDS = [
  'settings',
  'services',
  'groups',
  'views',
  'places',
  'visit_corrections',
  'media',
  'posts',
] as const;
export type RestoredKind = (typeof RESTORED_KINDS)[number];
export interface KindCounts {
  seen: number;
  stored: number;
  duplicates: number;
  skipped: number;
}
export type RestoreCounts = Record<RestoredKind, KindCounts>;

export function emptyCounts(): RestoreCounts {
  return Object.fromEntries(
    RESTORED_KINDS.map((kind) => [kind, { seen: 0, stored: 0, duplicates: 0, skipped: 0 }]),
  ) as RestoreCounts;
}

/**
 * The counts an import saved (its `items`), with zeros for the kinds restores did not count
 * yet when it was saved (places and visit corrections came later).
 */
export function savedCounts(items: string): RestoreCounts {
  return { ...emptyCounts(), ...(JSON.parse(items) as Partial<RestoreCounts>) };
}

/** What a restore needs besides the database: where media go, and the tools that check them. */
export interface RestoreDeps {
  storage: Storage;
  /** The image workers and ffmpeg, made when the first file needs them. */
  media: () => Promise<MediaDeps>;
  /** The largest media file taken, as for `POST /media` (WAYPOST_UPLOAD_LIMIT). */
  uploadLimit: number;
  secretsKey: SecretKey;
}

/** Points are counted as a location import counts them. */
export interface PointCounts {
  points_seen: number;
  points_stored: number;
  duplicates: number;
  skipped: number;
}

/** What every phase shares. */
export interface Phase {
  db: Db;
  archive: ExportArchive;
  userId: string;
  importId: string;
  deps: RestoreDeps;
  counts: RestoreCounts;
  points: PointCounts;
  next: () => boolean;
  problem: (where: string, message: string) => void;
  commit: (work: (trx: Db) => Promise<void>) => Promise<void>;
  now: () => number;
  onBytes: (n: number) => void;
}

/** A checker of a record against its schema in the format. */
export function checker<T extends TSchema>(schema: T) {
  const compiled = Compile(schema);
  return (value: unknown): Checked<Static<T>> => {
    if (compiled.Check(value)) return { ok: true, value };
    const first = [...compiled.Errors(value)][0];
    const path = first?.instancePath ? first.instancePath : '/';
    return { ok: false, message: `${path} ${first?.message ?? 'is invalid'}` };
  };
}

export function tally(run: Phase, kind: RestoredKind, outcome: 'stored' | 'duplicates' | 'skipped'): void {
  run.counts[kind].seen += 1;
  run.counts[kind][outcome] += 1;
}

/** A JSON file that holds an array (services, groups, views): its items, or nothing with an error. */
export async function jsonArray(run: Phase, name: string): Promise<unknown[]> {
  if (!run.archive.entries.has(name)) return [];
  try {
    const value = await readJsonEntry(run.archive, name);
    if (Array.isArray(value)) return value as unknown[];
    if (run.next()) run.problem(name, 'is not a JSON array; nothing in it was restored');
  } catch (error) {
    if (run.next()) run.problem(name, `${messageOf(error)}; nothing in it was restored`);
  }
  return [];
}

/** Records of a JSON Lines file, `size` at a time, each with its line number or its error. */
export async function* lineBatches(run: Phase, name: string, size: number): AsyncGenerator<Line[]> {
  const entry = run.archive.entries.get(name);
  if (!entry) return;
  let batch: Line[] = [];
  try {
    for await (const line of readLines(run.archive, entry, (n) => run.onBytes(n))) {
      batch.push(line);
      if (batch.length >= size) {
        yield batch;
        batch = [];
      }
    }
  } catch (error) {
    if (batch.length > 0) yield batch;
    batch = [];
    if (run.next())
      run.problem(name, `could not be read to its end (${messageOf(error)}); what came before was restored`);
  }
  if (batch.length > 0) yield batch;
}

/**
 * Whether an object is stored under `target`: not when its id is taken by others (skipped, for
 * the reason `taken`), nor when the person holds it already (a duplicate).
 */
export function isNew(
  run: Phase,
  kind: RestoredKind,
  target: Resolved | undefined,
  at: { counting: boolean; where: string },
  taken = 'its id is taken',
): target is { id: string; existing: false } {
  if (!target) {
    if (at.counting) tally(run, kind, 'skipped');
    if (at.counting) run.problem(at.where, taken);
    return false;
  }
  if (target.existing) {
    if (at.counting) tally(run, kind, 'duplicates');
    return false;
  }
  return true;
}

/** What a checker answers: the value typed, or a message naming the first field at fault. */
export type Checked<V> = { ok: true; value: V } | { ok: false; message: string };

/** How the objects of one JSON array file (services, groups, views) come back. */
export interface ArrayFile<V extends { id: string }> {
  name: string;
  kind: RestoredKind;
  table: RestoredTable;
  check: (value: unknown) => Checked<V>;
  /** What is said of an object whose id is taken (by others, under every derived id too). */
  taken: string;
  /** First in the commit (the views count those the person has). */
  begin?: (trx: Db) => Promise<void>;
  /** Why an object the schema takes is refused all the same, or undefined. */
  refuse?: (value: V) => string | undefined;
  /** Told the id an object has on this server once it is there: stored now, or the person's own already. */
  known?: (value: V, id: string) => void;
  /** Why a new object is refused all the same (a limit), or undefined. */
  limit?: () => string | undefined;
  /** Stores a new object under `id`. */
  store: (trx: Db, value: V, id: string, at: { where: string; counting: boolean }) => Promise<void>;
}

/** The objects of a JSON array file, each checked, given its id and stored, in one commit. */
export async function restoreArrayFile<V extends { id: string }>(run: Phase, file: ArrayFile<V>): Promise<void> {
  const items = await jsonArray(run, file.name);
  await run.commit(async (trx) => {
    await file.begin?.(trx);
    for (const [index, item] of items.entries()) {
      const where = `${file.name} [${index}]`;
      const counting = run.next();
      const skip = (message: string) => {
        if (counting) tally(run, file.kind, 'skipped');
        if (counting) run.problem(where, message);
      };
      const checked = file.check(item);
      if (!checked.ok) {
        skip(checked.message);
        continue;
      }
      const refusal = file.refuse?.(checked.value);
      if (refusal !== undefined) {
        skip(refusal);
        continue;
      }
      const [resolved] = await resolveIds(trx, file.table, run.userId, [checked.value.id]);
      if (!isNew(run, file.kind, resolved, { counting, where }, file.taken)) {
        if (resolved) file.known?.(checked.value, resolved.id);
        continue;
      }
      const limit = file.limit?.();
      if (limit !== undefined) {
        skip(limit);
        continue;
      }
      await file.store(trx, checked.value, resolved.id, { where, counting });
      file.known?.(checked.value, resolved.id);
      if (counting) tally(run, file.kind, 'stored');
    }
  });
}

/** A record of a JSON Lines file that passed its checks, with where it is and whether it counts. */
export interface ValidLine<V> {
  counting: boolean;
  where: string;
  value: V;
}

/**
 * The records of a batch of lines that pass `check` and `refuse` (posts, media); the others are
 * counted as skipped, with the reason.
 */
export function validLines<V>(
  run: Phase,
  lines: readonly Line[],
  file: {
    name: string;
    kind: RestoredKind;
    check: (value: unknown) => Checked<V>;
    refuse: (value: V) => string | undefined;
  },
): ValidLine<V>[] {
  const valid: ValidLine<V>[] = [];
  for (const line of lines) {
    const where = `${file.name} line ${line.line}`;
    const counting = run.next();
    const checked = 'error' in line ? { ok: false as const, message: line.error } : file.check(line.value);
    const refusal = checked.ok ? file.refuse(checked.value) : checked.message;
    if (refusal !== undefined || !checked.ok) {
      if (counting) tally(run, file.kind, 'skipped');
      if (counting) run.problem(where, refusal ?? 'is invalid');
    } else valid.push({ counting, where, value: checked.value });
  }
  return valid;
}

/**
 * A restored post's or point's `source`: the service it came from as this restore brought it
 * back (under its new id), or null when the archive holds no such service. The archive's word
 * would otherwise name any service id on this server, another account's private tracker
 * included, and a public point would show it.
 */
export function restoredSource(
  serviceIds: ReadonlyMap<string, string>,
  source: string | null | undefined,
): string | null {
  return source == null ? null : (serviceIds.get(source) ?? null);
}
