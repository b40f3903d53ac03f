// Imports as the API shows them, and the three things a person does with them: start one from a
// file, read them, and delete one (cancel it if it runs, and remove every point it stored).
import { open, rm } from 'node:fs/promises';
import { EXPORT_FORMAT } from '../archive/format.ts';
import { emptyCounts, savedCounts } from '../archive/restore/restore.phase.ts';
import type { Db } from '../db/database.ts';
import type { ScopeValue } from '../db/schema.ts';
import { insufficientScope } from '../core/caller.ts';
import { badRequest, notFound } from '../core/errors.ts';
import type { Permission } from '../core/permissions.ts';
import { cancelJobs, enqueueJobs } from '../jobs/jobs.repo.ts';
import { newId } from '../lib/ids.ts';
import { msToSeconds } from '../lib/time.ts';
import { getSettings } from '../settings/settings.logic.ts';
import { detectFile } from './detect.ts';
import { removeImportFile, storeImportFile, type ImportFiles } from './imports.files.ts';
import { IMPORT_JOB, IMPORT_MAX_ATTEMPTS, type ImportPayload } from './imports.job.ts';
import {
  cancelImportRow,
  deleteImportedPoints,
  deleteImportRow,
  findUserImportRow,
  insertImport,
  listImportRows,
  type ImportRow,
} from './imports.repo.ts';
import type { ImportError } from './imports.run.ts';
import type { Import } from './imports.schemas.ts';
import { FORMATS, isFormat } from './readers/formats.ts';
import { READS_PRIVATE } from '../items/access.ts';

/**
 * What a restore needs besides `write_locations` (the route's): the permissions that write
 * each kind of object it brings back, and `get_private_scope`, since it writes private ones.
 */
export const RESTORE_PERMISSIONS: readonly Permission[] = [
  'create_post',
  'upload_media',
  'create_service',
  'manage_groups',
  'manage_views',
  'update_settings',
  READS_PRIVATE,
];

/** Every `format` of an import: the location formats, and a Waypost export to restore. */
export const IMPORT_FORMATS = [...FORMATS, EXPORT_FORMAT];

export function toImport(row: ImportRow): Import {
  return {
    id: row.id,
    status: row.status,
    format: row.format,
    filename: row.filename,
    size: row.size,
    progress: row.progress,
    points_seen: row.points_seen,
    points_stored: row.points_stored,
    duplicates: row.duplicates,
    skipped: row.skipped,
    errors: JSON.parse(row.errors) as ImportError[],
    items: row.items ? savedCounts(row.items) : null,
    created_at: msToSeconds(row.created_at),
    started_at: row.started_at === null ? null : msToSeconds(row.started_at),
    finished_at: row.finished_at === null ? null : msToSeconds(row.finished_at),
  };
}

export interface NewImport {
  userId: string;
  /** The file: an upload in the data folder (`owned`, moved and deleted by us) or an operator's file. */
  path: string;
  owned: boolean;
  filename: string;
  format?: string | undefined;
  scope?: string | undefined;
}

function checkFields(input: NewImport): { format: string | undefined; scope: ScopeValue | undefined } {
  const { format, scope } = input;
  if (format !== undefined && !isFormat(format) && format !== EXPORT_FORMAT) {
    throw badRequest(`format must be one of ${IMPORT_FORMATS.join(', ')}; leave it out to have it detected.`, [
      { path: 'body/format', message: `must be one of ${IMPORT_FORMATS.join(', ')}` },
    ]);
  }
  if (scope !== undefined && scope !== 'public' && scope !== 'private') {
    throw badRequest('scope must be "public" or "private".', [
      { path: 'body/scope', message: 'must be "public" or "private"' },
    ]);
  }
  return { format, scope };
}

async function fileSize(path: string): Promise<number> {
  const handle = await open(path, 'r');
  try {
    return (await handle.stat()).size;
  } finally {
    await handle.close();
  }
}

export interface CreateImportOptions {
  /** Where an upload is kept until its import ends (imports.files.ts). */
  files: ImportFiles;
  now: number;
  /**
   * The caller's permissions (API): a restore writes every kind of object, so it needs what
   * writing each of them needs. The CLI, run by the operator, passes none.
   */
  permissions?: ReadonlySet<Permission> | undefined;
  /** Set by the CLI: the job (this id) is created running, held by this worker, so no other takes it. */
  heldBy?: { jobId: string; workerId: string; leaseMs: number };
}

/**
 * Checks the fields and the file's format (400 saying what the file looks like when it is no
 * location format), then stores the import and its job in one transaction. An owned upload is
 * moved into the store as `imports/<id>`; on a refusal it is deleted.
 */
export async function createImport(db: Db, input: NewImport, options: CreateImportOptions): Promise<Import> {
  const id = newId();
  let path = input.path;
  try {
    const fields = checkFields(input);
    const format = fields.format ?? (await detectOrRefuse(input.path, input.filename));
    if (format === EXPORT_FORMAT && options.permissions) {
      const missing = RESTORE_PERMISSIONS.find((permission) => !options.permissions!.has(permission));
      if (missing) throw insufficientScope(missing);
    }
    const scope = fields.scope ?? (await getSettings(db, input.userId)).defaultScopes.locations;
    const size = await fileSize(input.path);
    if (input.owned) path = await storeImportFile(options.files, id, input.path);
    const row: ImportRow = {
      id,
      user_id: input.userId,
      status: options.heldBy ? 'running' : 'queued',
      format,
      filename: input.filename,
      size,
      scope,
      file_path: path,
      file_owned: input.owned ? 1 : 0,
      progress: 0,
      points_seen: 0,
      points_stored: 0,
      duplicates: 0,
      skipped: 0,
      checkpoint: 0,
      errors: '[]',
      items: format === EXPORT_FORMAT ? JSON.stringify(emptyCounts()) : null,
      created_at: options.now,
      started_at: null,
      finished_at: null,
      updated_at: options.now,
    };
    const payload: ImportPayload = { import_id: id };
    await db.transaction().execute(async (trx) => {
      await insertImport(trx, row);
      const { heldBy } = options;
      const job = { id: heldBy?.jobId, kind: IMPORT_JOB, ref: id, payload, maxAttempts: IMPORT_MAX_ATTEMPTS, heldBy };
      await enqueueJobs(trx, [job], options.now);
    });
    return toImport(row);
  } catch (error) {
    if (input.owned) {
      await rm(input.path, { force: true });
      await removeImportFile(options.files, { file_owned: 1, file_path: path });
    }
    throw error;
  }
}

async function detectOrRefuse(path: string, filename: string): Promise<string> {
  const detection = await detectFile(path, filename);
  if (detection.format) return detection.format;
  throw badRequest(
    `The file is not a location history this server reads: it looks like ${detection.seen}. ` +
      `Formats read: ${IMPORT_FORMATS.join(', ')}.`,
    [{ path: 'body/file', message: `is ${detection.seen}, not a location format` }],
  );
}

export async function listImports(db: Db, userId: string): Promise<Import[]> {
  return (await listImportRows(db, userId)).map(toImport);
}

export async function getImport(db: Db, userId: string, id: string): Promise<Import> {
  const row = await findUserImportRow(db, userId, id);
  if (!row) throw notFound();
  return toImport(row);
}

/** Points deleted per statement when an import is undone, so no transaction grows with the import. */
const DELETE_CHUNK = 5000;

/**
 * Cancels the import (a running job stops at its next batch, whose points are rolled back),
 * then deletes the points it stored, a chunk at a time, the file, and the import. Stopped
 * half-way (a crash), the import stays `cancelled` and a second DELETE finishes the work.
 */
export async function deleteImport(db: Db, files: ImportFiles, userId: string, id: string, now: number): Promise<void> {
  const row = await findUserImportRow(db, userId, id);
  if (!row) throw notFound();
  await db.transaction().execute(async (trx) => {
    await cancelImportRow(trx, id, now);
    await cancelJobs(trx, IMPORT_JOB, [id], now);
  });
  while ((await deleteImportedPoints(db, userId, id, DELETE_CHUNK)) > 0);
  await removeImportFile(files, row);
  await deleteImportRow(db, id);
}
