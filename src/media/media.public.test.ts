// What strangers learn of a public medium's file (docs/privacy.md "Media files"): the public
// copy's hash and size, never the original's, in every body (the object by id, the public
// collection, a public view) and every header (the file's and the thumbnail's ETags). The
// original's hash would let anyone who guesses a file confirm it, and name it in a restore.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestUser, type TestApp } from '../../test/helpers.ts';
import { gpsPhoto, uploadMedium } from '../../test/media.ts';
import { tokenFor } from '../../test/tokens.ts';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

let t: TestApp;
let owner: string;
let ownerPlain: string;
let stranger: string;
let photo: Buffer;
let medium: { id: string; sha256: string; size: number };
let viewId: string;

const get = (url: string, token?: string, headers: Record<string, string> = {}) =>
  t.app.inject({ url, headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) } });

type Shown = { id: string; sha256: string | null; size: number | null };

/** The medium as each way of reading it shows it to `token` (none: anonymous). */
async function shownTo(token?: string): Promise<Shown[]> {
  const byId = (await get(`/media/id/${medium.id}`, token)).json<Shown>();
  const listed = (await get('/media/public/alice', token)).json<Shown[]>();
  const view = (await get(`/views/${viewId}`, token)).json<{ items: { item: Shown }[] }>();
  return [byId, ...listed, ...view.items.map((entry) => entry.item)].map(({ id, sha256, size }) => ({
    id,
    sha256,
    size,
  }));
}

beforeAll(async () => {
  t = await buildTestApp();
  const alice = await createTestUser(t.database, { username: 'alice' });
  owner = await tokenFor(t, alice, ['upload_media', 'get_private_scope', 'manage_views', 'get_views']);
  ownerPlain = await tokenFor(t, alice, []);
  stranger = await tokenFor(t, await createTestUser(t.database), ['get_private_scope']);
  photo = await gpsPhoto();
  const uploaded = await uploadMedium(t, owner, photo, 'IMG_1.JPG', 'image/jpeg', { scope: 'public' });
  expect(uploaded.statusCode).toBe(201);
  medium = uploaded.json();
  const view = await t.app.inject({
    method: 'POST',
    url: '/views',
    headers: { authorization: `Bearer ${owner}` },
    payload: { name: 'photos', kinds: ['media'], scope: 'public' },
  });
  expect(view.statusCode).toBe(201);
  viewId = view.json<{ id: string }>().id;
}, 60_000);
afterAll(() => t.close());

describe("a public medium's hash", () => {
  it("is the original's for its owner, who uploaded it", () => {
    expect(medium.sha256).toBe(sha256(photo));
    expect(medium.size).toBe(photo.length);
  });

  it("is never the original's for strangers: null until the public copy is made, then the copy's, in every body and header", async () => {
    const original = sha256(photo);
    for (const token of [undefined, stranger]) {
      expect(await shownTo(token)).toEqual(Array(3).fill({ id: medium.id, sha256: null, size: null }));
    }
    const file = await get(`/media/id/${medium.id}/file`);
    expect(file.statusCode).toBe(200);
    const copy = { sha256: sha256(file.rawPayload), size: file.rawPayload.length };
    expect(copy.sha256).not.toBe(original);
    expect(file.headers.etag).toBe(`"${copy.sha256}"`);
    const thumbnail = await get(`/media/id/${medium.id}/thumbnail`);
    expect(thumbnail.statusCode).toBe(200);
    expect(thumbnail.headers.etag).toBe(`"${sha256(thumbnail.rawPayload)}"`);
    for (const token of [undefined, stranger]) {
      expect(await shownTo(token)).toEqual(Array(3).fill({ id: medium.id, ...copy }));
      const again = await get(`/media/id/${medium.id}/file`, token);
      expect(again.headers.etag).toBe(`"${copy.sha256}"`);
      expect(again.rawPayload.equals(file.rawPayload)).toBe(true);
      const unchanged = await get(`/media/id/${medium.id}/file`, token, { 'if-none-match': `"${copy.sha256}"` });
      expect(unchanged.statusCode).toBe(304);
    }
    // No answer a stranger gets names the original's hash, in its body or any header.
    for (const url of [`/media/id/${medium.id}`, `/media/id/${medium.id}/file`, `/media/id/${medium.id}/thumbnail`]) {
      for (const token of [undefined, stranger]) {
        const response = await get(url, token);
        expect(JSON.stringify(response.headers)).not.toContain(original);
        expect(response.rawPayload.includes(Buffer.from(original))).toBe(false);
      }
    }
    for (const url of ['/media/public/alice', `/views/${viewId}`]) {
      expect((await get(url)).body).not.toContain(original);
    }
  });

  it("stays the original's for the owner, with the original file and its ETag", async () => {
    for (const token of [owner, ownerPlain]) {
      const own = (await get(`/media/id/${medium.id}`, token)).json<Shown>();
      expect([own.sha256, own.size]).toEqual([sha256(photo), photo.length]);
      const file = await get(`/media/id/${medium.id}/file`, token);
      expect(file.headers.etag).toBe(`"${sha256(photo)}"`);
      expect(file.rawPayload.equals(photo)).toBe(true);
    }
    const listed = (await get('/media/public', owner)).json<Shown[]>();
    expect(listed.map((m) => m.sha256)).toEqual([sha256(photo)]);
    // A public view is one answer for everyone: its owner too sees the public copy's hash.
    const copy = sha256((await get(`/media/id/${medium.id}/file`)).rawPayload);
    const view = (await get(`/views/${viewId}`, owner)).json<{ items: { item: Shown }[] }>();
    expect(view.items.map((entry) => entry.item.sha256)).toEqual([copy]);
    // A private view, which only the owner reads, shows the original's.
    const created = await t.app.inject({
      method: 'POST',
      url: '/views',
      headers: { authorization: `Bearer ${owner}` },
      payload: { name: 'mine', kinds: ['media'], scope: 'private' },
    });
    expect(created.statusCode).toBe(201);
    const own = await get(`/views/${created.json<{ id: string }>().id}`, owner);
    expect(own.json<{ items: { item: Shown }[] }>().items.map((entry) => entry.item.sha256)).toEqual([sha256(photo)]);
  });

  it('is forgotten with the public copy when the last medium of that content goes', async () => {
    const recorded = () =>
      t.database.db.selectFrom('public_copies').select('sha256').where('sha256', '=', sha256(photo)).execute();
    expect(await recorded()).toHaveLength(1);
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/media/id/${medium.id}`,
      headers: { authorization: `Bearer ${owner}` },
    });
    expect(deleted.statusCode).toBe(204);
    expect(await recorded()).toEqual([]);
  });
});
