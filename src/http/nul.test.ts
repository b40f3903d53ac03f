// U+0000 in any text a client sends is refused with 400 before it reaches a query: PostgreSQL
// cannot store it and answered such requests with 500 (found by fuzzing every route).
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, countRows, createTestUser, type TestApp } from '../../test/helpers.ts';
import { uploadMedium } from '../../test/media.ts';
import { tokenFor } from '../../test/tokens.ts';

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await buildTestApp();
  const alice = await createTestUser(t.database);
  token = await tokenFor(t, alice, ['create_post', 'get_private_scope', 'update_settings', 'upload_media']);
});
afterAll(() => t.close());

const refused = {
  type: 'urn:waypost:problem:invalid_request',
  title: 'Bad Request',
  status: 400,
  detail: 'Text in a request may not contain the NUL character (U+0000).',
  code: 'invalid_request',
};

describe('the NUL character', () => {
  it.each([
    ['POST', '/posts', { text: 'before\u0000after', groups: [] }],
    ['POST', '/posts', { text: 'fine', groups: [], 'odd\u0000key': 1 }],
    ['POST', '/settings', { bio: 'x\u0000' }],
    ['GET', '/posts/id/%00', undefined],
    ['GET', '/posts/public/alice%00', undefined],
    ['GET', '/users/%00', undefined],
    ['GET', '/posts/private?since_time=1&cursor=%00', undefined],
    ['GET', '/@a%00b', undefined],
    ['POST', '/ingest/%00', undefined],
  ] as const)('is refused in %s %s', async (method, url, payload) => {
    const response = await t.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${token}` },
      ...(payload ? { payload } : {}),
    });
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(response.json()).toEqual(refused);
  });

  it('is refused in a form field and a file name of an upload, and nothing is stored', async () => {
    const photo = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#000' } })
      .png()
      .toBuffer();
    const before = await countRows(t.database, 'media');
    for (const [name, fields] of [
      ['dot.png', { caption: 'a\u0000b' }],
      ['d\u0000t.png', {}],
    ] as const) {
      const response = await uploadMedium(t, token, photo, name, 'image/png', fields);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(refused);
    }
    expect(await countRows(t.database, 'media')).toBe(before);
  });

  it('leaves text without it alone', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/posts',
      headers: { authorization: `Bearer ${token}` },
      payload: { text: 'a backslash-u: \\u0000 is six characters', groups: [] },
    });
    expect(response.statusCode).toBe(202);
    expect(response.json<{ text: string }>().text).toBe('a backslash-u: \\u0000 is six characters');
  });
});
