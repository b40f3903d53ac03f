import { sql, type SqlBool } from 'kysely';
import type { Db } from '../db/database.ts';
import type { MediaTable, ScopeValue } from '../db/schema.ts';
import { scopeRule, selectPage, type Audience, type PageQuery } from '../items/items.repo.ts';

export type MediumRow = MediaTable;

/** A page of media; with `kind`, of that kind only (an assistant's `list_media`, src/mcp/). */
export function selectMediaPage(db: Db, audience: Audience, page: PageQuery, kind?: string) {
  return selectPage(
    db,
    'media',
    audience,
    page,
    kind === undefined ? undefined : sql<SqlBool>`${sql.ref('kind')} = ${kind}`,
  );
}

/** The media among `ids` that the audience may see (the scope rule), in no particular order. */
export async function selectMediaByIds(db: Db, audience: Audience, ids: readonly string[]): Promise<MediumRow[]> {
  if (ids.length === 0) return [];
  const { rows } = await sql<MediumRow>`select * from media
    where ${scopeRule(audience, 'media')} and ${sql.ref('id')} in (${sql.join(ids)})`.execute(db);
  return rows;
}

/** A new medium: its stored file and what is known of it (an upload's facts, a restored record). */
export interface NewMedium {
  userId: string;
  id: string;
  scope: ScopeValue;
  timeMs: number;
  createdAtMs: number;
  /** The file as judged by its bytes, stored under its hash. */
  file: { kind: string; mimeType: string; size: number; sha256: string };
  width: number | null;
  height: number | null;
  duration: number | null;
  location: { lat: number; lon: number } | null;
  /** Where `location` came from: the file (the default) or the person's history. */
  locationSource?: 'exif' | 'history';
  caption: string;
  hasThumbnail: boolean;
  /** The service it came from; null for an upload or a restore. */
  source?: string | null;
  /** The name an upload's file had (searched while private: migration 0041). */
  fileName?: string | null;
}

/** A medium's row, made here for every way a medium comes in. */
export function mediumRow(medium: NewMedium): MediumRow {
  return {
    user_id: medium.userId,
    id: medium.id,
    scope: medium.scope,
    time: medium.timeMs,
    created_at: medium.createdAtMs,
    kind: medium.file.kind,
    mime_type: medium.file.mimeType,
    size: medium.file.size,
    sha256: medium.file.sha256,
    width: medium.width,
    height: medium.height,
    duration: medium.duration,
    lat: medium.location?.lat ?? null,
    lon: medium.location?.lon ?? null,
    location_source: medium.location ? (medium.locationSource ?? 'exif') : null,
    caption: medium.caption,
    has_thumbnail: medium.hasThumbnail ? 1 : 0,
    source: medium.source ?? null,
    file_name: medium.fileName ?? null,
  };
}

export async function insertMedium(db: Db, row: MediumRow): Promise<void> {
  await insertMedia(db, [row]);
}

/** Several media in one statement (a restore's batch). */
export async function insertMedia(db: Db, rows: readonly MediumRow[]): Promise<void> {
  if (rows.length > 0)
    await db
      .insertInto('media')
      .values([...rows])
      .execute();
}

/** The owner's public media among `ids` (what may go out with a post), in no particular order. */
export function publicMediaRows(db: Db, userId: string, ids: readonly string[]): Promise<MediumRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('media')
    .selectAll()
    .where('user_id', '=', userId)
    .where('scope', '=', 'public')
    .where('id', 'in', [...new Set(ids)])
    .execute();
}

/** A public copy's hash and size (what strangers are told of the file), by the original's hash. */
export interface CopyFacts {
  sha256: string;
  size: number;
}

/** The facts of the public copies made of `hashes` (originals); a copy not made yet is absent. */
export async function publicCopyFacts(db: Db, hashes: readonly string[]): Promise<Map<string, CopyFacts>> {
  if (hashes.length === 0) return new Map();
  const rows = await db
    .selectFrom('public_copies')
    .selectAll()
    .where('sha256', 'in', [...new Set(hashes)])
    .execute();
  return new Map(rows.map((row) => [row.sha256, { sha256: row.copy_sha256, size: Number(row.copy_size) }]));
}

/**
 * Records a public copy's facts. The public pages of everyone with a public medium of that
 * content change with them (null becomes the copy's hash), so their version moves too
 * (src/items/public-pages.ts).
 */
export async function recordPublicCopy(db: Db, original: string, copy: CopyFacts): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('public_copies')
      .values({ sha256: original, copy_sha256: copy.sha256, copy_size: copy.size })
      .onConflict((oc) => oc.column('sha256').doUpdateSet({ copy_sha256: copy.sha256, copy_size: copy.size }))
      .execute();
    await trx
      .updateTable('users')
      .set((eb) => ({ items_version: eb('items_version', '+', 1) }))
      .where('id', 'in', (eb) =>
        eb.selectFrom('media').select('user_id').where('sha256', '=', original).where('scope', '=', 'public'),
      )
      .execute();
  });
}

/** Forgets a public copy's facts, when the copy itself is removed with its original. */
export async function forgetPublicCopy(db: Db, original: string): Promise<void> {
  await db.deleteFrom('public_copies').where('sha256', '=', original).execute();
}

/** Whether any medium of any account still has this content (migration 0013's index). */
export async function hashInUse(db: Db, sha256: string): Promise<boolean> {
  const row = await db.selectFrom('media').select('id').where('sha256', '=', sha256).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** Which of `hashes` some medium of any account still has (migration 0013's index). */
export async function hashesInUse(db: Db, hashes: readonly string[]): Promise<Set<string>> {
  if (hashes.length === 0) return new Set();
  const rows = await db
    .selectFrom('media')
    .select('sha256')
    .distinct()
    .where('sha256', 'in', [...new Set(hashes)])
    .execute();
  return new Set(rows.map((row) => row.sha256));
}

/** The distinct content hashes of a person's media: the files to look at after the rows go. */
export async function mediaHashesOf(db: Db, userId: string): Promise<string[]> {
  const rows = await db.selectFrom('media').select('sha256').distinct().where('user_id', '=', userId).execute();
  return rows.map((row) => row.sha256);
}

/**
 * The media of `owner` just newer and just older than `at` in (time, id) order, of those the
 * audience sees: the media viewers' Previous and Next. Two one-row index seeks.
 */
export async function neighbourMedia(
  db: Db,
  owner: string,
  audience: Audience,
  at: { time: number; id: string },
): Promise<{ newer: MediumRow | undefined; older: MediumRow | undefined }> {
  const own = sql<SqlBool>`${sql.ref('user_id')} = ${owner}`;
  const [newer, older] = await Promise.all([
    selectPage(db, 'media', audience, { count: 1, order: 'asc', after: at }, own),
    selectPage(db, 'media', audience, { count: 1, order: 'desc', after: at }, own),
  ]);
  return { newer: newer.rows[0], older: older.rows[0] };
}
