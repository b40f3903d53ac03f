// A post's media belong to it (docs/design.md "The web app"): the timeline and the day show a
// photo of a post once, in the post's card, through HTTP on both databases; and a photo's alt
// text names its day on the owner's clock.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInThroughForm } from '../../test/browser.ts';
import { buildTestApp, createTestUser, type TestApp } from '../../test/helpers.ts';
import { gpsPhoto, uploadMedium } from '../../test/media.ts';
import { tokenFor } from '../../test/tokens.ts';
import type { Medium } from '../media/media.schemas.ts';
import type { Post } from '../posts/posts.schemas.ts';
import { updateSettings } from '../settings/settings.logic.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: { WAYPOST_MAP_STYLE: 'none' } });
});
afterAll(() => t?.close());

describe('a photo of a post on the timeline', () => {
  it('shows once, in its post; alone again once the post is gone; always on the Media filter', async () => {
    const user = await createTestUser(t.database);
    const token = await tokenFor(t, user, ['create_post', 'upload_media', 'get_private_scope']);
    const bearer = { authorization: `Bearer ${token}` };
    const upload = async () => {
      const response = await uploadMedium(t, token, await gpsPhoto(), 'lake.jpg', 'image/jpeg', { scope: 'public' });
      expect(response.statusCode).toBe(201);
      return response.json<Medium>();
    };
    const inPost = await upload();
    const alone = await upload();
    const created = await t.app.inject({
      method: 'POST',
      url: '/posts',
      headers: bearer,
      payload: { text: 'At the lake', scope: 'public', groups: [], media_ids: [inPost.id] },
    });
    expect(created.statusCode).toBe(202);
    const post = created.json<Post>();

    const browser = await signInThroughForm(t.app, user.username, user.password);
    const page = async (url: string) => {
      const response = await t.app.inject({ method: 'GET', url, headers: { cookie: browser.cookie } });
      expect(response.statusCode).toBe(200);
      return response.body;
    };
    const links = (body: string, id: string) => body.split(`href="/app/media/${id}"`).length - 1;
    const cards = (body: string) => [...body.matchAll(/data-kind="(post|medium)"/g)].map((m) => m[1]);

    const timeline = await page('/');
    expect(cards(timeline)).toEqual(['post', 'medium']);
    expect(links(timeline, inPost.id)).toBe(1);
    expect(links(timeline, alone.id)).toBe(1);
    const day = await page(`/app/days/${new Date(post.time * 1000).toISOString().slice(0, 10)}`);
    expect(links(day, inPost.id)).toBe(1);
    expect(links(await page('/?kind=media'), inPost.id)).toBe(1);
    expect(cards(await page('/?kind=media'))).toEqual(['medium', 'medium']);

    const deleted = await t.app.inject({ method: 'DELETE', url: `/posts/id/${post.id}`, headers: bearer });
    expect(deleted.statusCode).toBe(204);
    expect(cards(await page('/'))).toEqual(['medium', 'medium']);
  });
});

describe('a photo without a caption', () => {
  it("is described by the day it was taken on the owner's clock, not on UTC's", async () => {
    const user = await createTestUser(t.database);
    const token = await tokenFor(t, user, ['upload_media', 'get_private_scope']);
    const response = await uploadMedium(t, token, await gpsPhoto(), 'night.jpg', 'image/jpeg', { scope: 'public' });
    expect(response.statusCode).toBe(201);
    const medium = response.json<Medium>();
    // 23:30 on 1 May in UTC is 08:30 on 2 May in Tokyo.
    await sql`update media set time = ${Date.UTC(2024, 4, 1, 23, 30)} where id = ${medium.id}`.execute(t.database.db);
    await updateSettings(t.database.db, user.id, { timezone: 'Asia/Tokyo' });
    const browser = await signInThroughForm(t.app, user.username, user.password);
    for (const url of ['/app/media', `/app/media/${medium.id}`, '/?kind=media']) {
      const page = await t.app.inject({ method: 'GET', url, headers: { cookie: browser.cookie } });
      expect(page.statusCode, url).toBe(200);
      expect(page.body, url).toContain('alt="Photo without a caption, from 2024-05-02"');
    }
  });
});
