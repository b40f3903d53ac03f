// POST /posts/id/<id> and POST /media/id/<id>: changing one's own item's scope and caption.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestUser, type TestApp } from '../../test/helpers.ts';
import { uploadMedium } from '../../test/media.ts';
import { tokenFor } from '../../test/tokens.ts';
import { demoPhoto } from '../../test/web.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

describe('changing an item', () => {
  it('makes a post private: it leaves the public collection, its ETag changes, and the answer is the post', async () => {
    const owner = await createTestUser(t.database);
    const token = await tokenFor(t, owner, ['create_post', 'get_private_scope']);
    const auth = { authorization: `Bearer ${token}` };
    const created = await t.app.inject({
      method: 'POST',
      url: '/posts',
      headers: auth,
      payload: { text: 'soon hidden', groups: [] },
    });
    const id = created.json<{ id: string }>().id;
    const before = await t.app.inject({ url: `/posts/public/${owner.username}` });
    expect(before.json<{ text: string }[]>().map((p) => p.text)).toEqual(['soon hidden']);

    const changed = await t.app.inject({
      method: 'POST',
      url: `/posts/id/${id}`,
      headers: auth,
      payload: { scope: 'private' },
    });
    expect(changed.statusCode).toBe(200);
    expect(changed.json<{ scope: string; text: string }>()).toMatchObject({ scope: 'private', text: 'soon hidden' });
    const after = await t.app.inject({ url: `/posts/public/${owner.username}` });
    expect(after.json()).toEqual([]);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect((await t.app.inject({ url: `/posts/id/${id}` })).statusCode).toBe(401);
  });

  it("answers another person's item like a missing one, and refuses unknown fields", async () => {
    const owner = await createTestUser(t.database);
    const other = await createTestUser(t.database);
    const ownerToken = await tokenFor(t, owner, ['create_post', 'upload_media', 'get_private_scope']);
    const otherToken = await tokenFor(t, other, ['create_post', 'upload_media', 'get_private_scope']);
    const post = await t.app.inject({
      method: 'POST',
      url: '/posts',
      headers: { authorization: `Bearer ${ownerToken}` },
      payload: { text: 'mine', groups: [] },
    });
    const id = post.json<{ id: string }>().id;
    const theirs = await t.app.inject({
      method: 'POST',
      url: `/posts/id/${id}`,
      headers: { authorization: `Bearer ${otherToken}` },
      payload: { scope: 'private' },
    });
    const missing = await t.app.inject({
      method: 'POST',
      url: `/posts/id/01JXXXXXXXXXXXXXXXXXXXXXXX`,
      headers: { authorization: `Bearer ${otherToken}` },
      payload: { scope: 'private' },
    });
    expect(theirs.statusCode).toBe(404);
    expect(theirs.json<{ detail: string }>().detail).toBe(missing.json<{ detail: string }>().detail);
    const unknown = await t.app.inject({
      method: 'POST',
      url: `/posts/id/${id}`,
      headers: { authorization: `Bearer ${ownerToken}` },
      payload: { media_ids: [] },
    });
    expect(unknown.statusCode).toBe(400);
    const own = await t.app.inject({ url: `/posts/id/${id}` });
    expect(own.json<{ text: string; scope: string }>()).toMatchObject({ text: 'mine', scope: 'public' });
  });

  it("changes a medium's caption and scope", async () => {
    const owner = await createTestUser(t.database);
    const token = await tokenFor(t, owner, ['upload_media', 'get_private_scope']);
    const uploaded = await uploadMedium(t, token, await demoPhoto(), 'a.jpg', 'image/jpeg', { scope: 'private' });
    const id = uploaded.json<{ id: string }>().id;
    const changed = await t.app.inject({
      method: 'POST',
      url: `/media/id/${id}`,
      headers: { authorization: `Bearer ${token}` },
      payload: { caption: 'A hill', scope: 'public' },
    });
    expect(changed.json<{ caption: string; scope: string }>()).toMatchObject({ caption: 'A hill', scope: 'public' });
    const strangers = await t.app.inject({ url: `/media/id/${id}` });
    expect(strangers.json<{ caption: string }>().caption).toBe('A hill');
  });
});
