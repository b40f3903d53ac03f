import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestUser, type TestApp } from '../../test/helpers.ts';
import { insertItems } from '../../test/items.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

describe('GET /users/<username>', () => {
  it('returns the public profile, whatever the case of the name', async () => {
    const user = await createTestUser(t.database, { username: 'Dora', displayName: 'Dora the Explorer', bio: 'Maps.' });
    const response = await t.app.inject({ method: 'GET', url: '/users/dora' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.json()).toEqual({
      username: 'Dora',
      display_name: 'Dora the Explorer',
      bio: 'Maps.',
      created_at: user.createdAt / 1000,
      public_counts: { posts: 0, media: 0, locations: 0 },
      feeds: {
        atom: 'http://waypost.test/posts/public/Dora?format=atom',
        json_feed: 'http://waypost.test/posts/public/Dora?format=jsonfeed',
      },
    });
  });

  it('counts public posts, media and locations, never private ones', async () => {
    const user = await createTestUser(t.database);
    await insertItems(t.database, 'posts', user.id, [{ scope: 'public' }, { scope: 'public' }, { scope: 'private' }]);
    await insertItems(t.database, 'media', user.id, [{ scope: 'private' }, { scope: 'public' }]);
    await insertItems(t.database, 'locations', user.id, [{ scope: 'private' }, { scope: 'private' }]);
    const response = await t.app.inject({ method: 'GET', url: `/users/${user.username}` });
    expect(response.json()).toMatchObject({ public_counts: { posts: 2, media: 1, locations: 0 } });
  });

  it('never shows the password hash or internal id', async () => {
    const user = await createTestUser(t.database);
    const body = (await t.app.inject({ method: 'GET', url: `/users/${user.username}` })).body;
    expect(body).not.toContain('scrypt');
    expect(body).not.toContain(user.id);
  });

  it('is 404 problem+json for an unknown or impossible name', async () => {
    for (const name of ['nobody', 'no%20such', '%F0%9F%98%80']) {
      const response = await t.app.inject({ method: 'GET', url: `/users/${name}` });
      expect(response.statusCode).toBe(404);
      expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(response.json()).toMatchObject({ status: 404, code: 'not_found', title: 'Not Found' });
    }
  });
});
