// A media file shared by content: the deletion of its last medium and an upload of the same
// bytes by someone else, interleaved step by step the ways two requests (or processes) can
// interleave them. Whatever the order, once the upload's row is committed and the upload has
// settled, the file is in place with its bytes, and nothing is left in the temporary folders.
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { buildTestApp, createTestUser, type TestApp } from '../../test/helpers.ts';
import { finishRetiredMedia } from '../housekeeping/temp-files.ts';
import { newId } from '../lib/ids.ts';
import { keysUnder, objectBytes } from '../../test/storage.ts';
import {
  fileKey,
  finishRetired,
  mediaStorage,
  placeShared,
  RETIRED_PREFIX,
  stored,
  retireShared,
  settleShared,
  writeFileAtomic,
  writeTemp,
  type Storage,
} from './media.storage.ts';
import { hashInUse } from './media.repo.ts';
import { removeUnusedFiles } from './media.removal.ts';

let t: TestApp;
let storage: Storage;
let a: string;
let b: string;
let bytes: Buffer;
let sha256: string;

beforeAll(async () => {
  t = await buildTestApp();
  storage = mediaStorage(t.config);
  a = (await createTestUser(t.database)).id;
  b = (await createTestUser(t.database)).id;
});
afterAll(() => t.close());

/** A's medium, with its file stored: the one about to be deleted. Fresh bytes for each test. */
beforeEach(async () => {
  bytes = Buffer.from(`shared content ${newId()}`);
  sha256 = createHash('sha256').update(bytes).digest('hex');
  await writeFileAtomic(storage, fileKey(sha256), bytes);
  await insertMedium(a);
});

async function insertMedium(userId: string): Promise<string> {
  const id = newId();
  await t.database.db
    .insertInto('media')
    .values({
      user_id: userId,
      id,
      scope: 'private',
      time: 1,
      created_at: 1,
      kind: 'image',
      mime_type: 'image/png',
      size: bytes.length,
      sha256,
      width: 1,
      height: 1,
      duration: null,
      lat: null,
      lon: null,
      caption: '',
      has_thumbnail: 0,
      source: null,
    })
    .execute();
  return id;
}

const deleteRowsOf = (userId: string) =>
  t.database.db.deleteFrom('media').where('user_id', '=', userId).where('sha256', '=', sha256).execute();

/** B's upload up to its commit: the bytes in a temporary file, placed. */
async function uploadUntilCommit() {
  const temp = await writeTemp(storage, Readable.from([bytes]));
  expect(temp.sha256).toBe(sha256);
  const placed = await placeShared(storage, temp.path, fileKey(sha256));
  return { temp: temp.path, placed };
}

async function expectFileIntact() {
  expect((await objectBytes(storage, fileKey(sha256)))?.equals(bytes)).toBe(true);
  expect(readdirSync(storage.tmp).filter((name) => name.endsWith('.part'))).toEqual([]);
  expect(await keysUnder(storage, RETIRED_PREFIX)).toEqual([]);
}

it('the deletion checks before the upload commits: the upload puts its copy back', async () => {
  const upload = await uploadUntilCommit();
  expect(upload.placed).toBe('present');
  await deleteRowsOf(a);
  await removeUnusedFiles(t.database.db, storage, [sha256]);
  // The window the old code lost the file in: the deletion saw no medium with this content.
  expect(await stored(storage, fileKey(sha256))).toBe(false);
  await insertMedium(b);
  await settleShared(storage, upload.temp, fileKey(sha256));
  await expectFileIntact();
});

it('the upload commits and settles between the deletion moving the file aside and its check', async () => {
  const upload = await uploadUntilCommit();
  await deleteRowsOf(a);
  const aside = await retireShared(storage, fileKey(sha256));
  expect(aside).toBeDefined();
  await insertMedium(b);
  await settleShared(storage, upload.temp, fileKey(sha256));
  await finishRetired(storage, aside, fileKey(sha256), await hashInUse(t.database.db, sha256));
  await expectFileIntact();
});

it('the upload commits before the deletion moves the file aside, and settles after it', async () => {
  const upload = await uploadUntilCommit();
  await deleteRowsOf(a);
  await insertMedium(b);
  const aside = await retireShared(storage, fileKey(sha256));
  await settleShared(storage, upload.temp, fileKey(sha256));
  await finishRetired(storage, aside, fileKey(sha256), await hashInUse(t.database.db, sha256));
  await expectFileIntact();
});

it('the upload is over before the deletion starts: the deletion puts the file back', async () => {
  const upload = await uploadUntilCommit();
  await insertMedium(b);
  await settleShared(storage, upload.temp, fileKey(sha256));
  await deleteRowsOf(a);
  await removeUnusedFiles(t.database.db, storage, [sha256]);
  await expectFileIntact();
});

it('the upload finds no file (a deletion moved it aside) and links its own; the deletion then removes only its copy', async () => {
  await deleteRowsOf(a);
  const aside = await retireShared(storage, fileKey(sha256));
  const upload = await uploadUntilCommit();
  expect(upload.placed).toBe('placed');
  await finishRetired(storage, aside, fileKey(sha256), await hashInUse(t.database.db, sha256));
  await insertMedium(b);
  await settleShared(storage, upload.temp, fileKey(sha256));
  await expectFileIntact();
});

it('with no upload, the file goes with its last medium', async () => {
  await deleteRowsOf(a);
  await removeUnusedFiles(t.database.db, storage, [sha256]);
  expect(await stored(storage, fileKey(sha256))).toBe(false);
  expect(await keysUnder(storage, RETIRED_PREFIX)).toEqual([]);
});

it('a deletion stopped after moving the file aside is finished by housekeeping: back when in use, else gone', async () => {
  await retireShared(storage, fileKey(sha256));
  expect(await stored(storage, fileKey(sha256))).toBe(false);
  // Housekeeping leaves a file moved aside only a moment ago to the deletion still running.
  expect(await finishRetiredMedia(t.database.db, t.config, Date.now() - 60_000)).toBe(0);
  expect(await finishRetiredMedia(t.database.db, t.config, Date.now() + 1000)).toBe(1);
  await expectFileIntact();

  await deleteRowsOf(a);
  await retireShared(storage, fileKey(sha256));
  expect(await finishRetiredMedia(t.database.db, t.config, Date.now() + 1000)).toBe(1);
  expect(await stored(storage, fileKey(sha256))).toBe(false);
  expect(await keysUnder(storage, RETIRED_PREFIX)).toEqual([]);
});
