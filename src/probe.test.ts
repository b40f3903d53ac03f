import { it } from 'vitest';
import { buildTestApp, createTestUser } from '../test/helpers.ts';
import { tokenFor } from '../test/tokens.ts';

it('probe', async () => {
  const t = await buildTestApp();
  const u = await createTestUser(t.database, { username: 'probe' });
  const tok = await tokenFor(t, u, ['create_post', 'write_locations', 'update_settings', 'get_views', 'manage_views', 'get_private_scope', 'upload_media']);
  const send = async (method: string, url: string, payload?: unknown) => {
    const r = await t.app.inject({ method: method as 'GET', url, headers: { authorization: `Bearer ${tok}`, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) }, ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }) });
    console.log('>>', method, url.slice(0, 60), JSON.stringify(payload)?.slice(0, 60), '=>', r.statusCode, r.body.slice(0, 400));
  };
  for (const body of [[], 5, 'x', null, true, {}, { text: 'a' }, { groups: [] }, { text: 5, groups: [] }, { text: '   ', groups: [] }, { text: 'x'.repeat(5001), groups: [] }, { text: 'a', groups: [], zz: 1 }, { text: 'a', groups: 'x' }, { text: 'a', groups: ['nope'] }, { text: 'a', groups: [], scope: 'x' }, { text: 'a', groups: [], media_ids: ['x'] }, { text: 'a', groups: [], location: { lat: 100, lon: 0 } }, { text: 'a', groups: [], location: 'x' }, { text: 'a', groups: [1] }, { text: 'a', groups: ['a', 'a'] }])
    await send('POST', '/posts', body);
  for (const body of [[], {}, 5, null, [{}], [{ time: 1 }], [{ time: 1, lat: 1, lon: 1 }], [{ time: 'x', lat: 1, lon: 1 }], [{ time: 1, lat: 91, lon: 1 }], [{ time: 1, lat: 1, lon: 1, zz: 1 }], { type: 'FeatureCollection', features: [] }, { type: 'FeatureCollection', features: [5] }, { type: 'FeatureCollection', features: [{ type: 'Feature', geometry: { type: 'Point', coordinates: [1, 2] }, properties: { timestamp: '2020-01-01T00:00:00Z' } }] }])
    await send('POST', '/locations', body);
  for (const body of [[], 5, null, {}, { timezone: 'Mars/Base' }, { timezone: 5 }, { bio: 5 }, { zz: 1 }, { public_location_precision_m: 'x' }, { public_location_precision_m: 5 }, { public_location_precision_m: 1e9 }, { default_scopes: 5 }, { default_scopes: { x: 'public' } }, { default_scopes: { posts: 'x' } }, { display_name: 'x'.repeat(1000) }])
    await send('POST', '/settings', body);
  for (const body of [[], 5, null, {}, { name: 5 }, { name: ' ' }, { name: 'a', zz: 1 }, { name: 'a', kinds: ['x'] }, { name: 'a', scope: 'x' }, { name: 'a', filters: { zz: 1 } }, { name: 'a', filters: { since_time: 'x' } }, { name: 'a', filters: { bbox: [1, 2] } }, { name: 'a', filters: { bbox: [1, 2, 3, 4] } }, { name: 'a', filters: { since_time: 5, until_time: 1 } }, { name: 'a', scope: 'public', filters: { scope: 'private' } }])
    await send('POST', '/views', body);
  for (const q of ['count=x', 'count=0', 'count=1001', 'count=1e400', 'since_time=x', 'since_time=NaN', 'until_time=Infinity', 'order=x', 'cursor=x', 'cursor=', 'bbox=x', 'bbox=1,2,3', 'bbox=1,2,3,4', 'format=x', 'x=1', 'count=5&count=6', 'since_time=', 'count=', 'order='])
    await send('GET', `/posts/public/probe?${q}`);
  for (const q of ['bbox=x', 'bbox=1,2,3', 'bbox=1,2,3,4', 'format=x', 'format=gpx', 'bbox=200,0,0,1', 'bbox=0,10,1,5'])
    await send('GET', `/locations/public/probe?${q}`);
  for (const id of ['x', '', 'a b', '%00', '01HZ0000000000000000000001'])
    await send('GET', `/posts/id/${encodeURIComponent(id)}`);
  await t.close();
}, 60000);
