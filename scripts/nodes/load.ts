// The steady mixed load of the several-node test (docs/scaling.md "The several-node test"),
// every request through the balancer: tracker batches, photo and video uploads, posts to the
// webhook group, imports, exports, public page reads, reads of stored media and OAuth token
// refreshes. Each client loops until told to stop and writes what was acknowledged (2xx) into
// the ledger, which the checks afterwards hold the cluster to. A client that must not lose its
// write (a tracker's batch, a post with an Idempotency-Key) sends it again after a retryable
// error, as the phone apps and careful clients do.
import { createHash, randomUUID } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import sharp from 'sharp';
import { insecure, signIn, USERNAME, type Services, type Session } from './setup.ts';
import { expectStatus, Retryable, WrongAnswer, type Tally } from './tally.ts';

export interface Medium {
  id: string;
  sha256: string;
  size: number;
  kind: 'image' | 'video';
  scope: 'public' | 'private';
}

/** What the cluster acknowledged. */
export interface Ledger {
  /** Tracker points, `time_ms lat lon` (lat and lon as sent, 4 decimals). */
  points: Set<string>;
  media: Medium[];
  posts: { id: string; scope: string; text: string }[];
  imports: string[];
  exports: number;
  refreshes: number;
  /** Refresh chains that ended because a rotated token's answer was lost (RFC 9700 reuse detection). */
  chainsLost: number;
}

export interface LoadContext {
  baseUrl: string;
  session: Session;
  services: Services;
  videos: Buffer[];
  tally: Tally;
  ledger: Ledger;
  stopped: () => boolean;
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const bearer = (ctx: LoadContext) => ({ authorization: `Bearer ${ctx.session.accessToken}` });
/** Every request gives up after this long (a node that stopped answering is a timeout, retryable). */
const TIMEOUT_MS = 30_000;

function request(ctx: LoadContext, path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${ctx.baseUrl}${path}`, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
}

async function loop(ctx: LoadContext, pauseMs: number, body: () => Promise<void>): Promise<void> {
  while (!ctx.stopped()) {
    await body();
    await sleep(pauseMs);
  }
}

/** Sends until acknowledged (at most `tries`); retryable errors are counted on the way. */
async function untilAcknowledged<T>(ctx: LoadContext, kind: string, tries: number, send: () => Promise<T>) {
  for (let attempt = 0; attempt < tries; attempt += 1) {
    const { outcome, value } = await ctx.tally.attempt(kind, send);
    if (outcome === 'ok') return value;
    if (outcome === 'failure') return undefined;
    await sleep(300);
  }
  ctx.tally.failure(kind, `not acknowledged after ${tries} tries`);
  return undefined;
}

let nextPoint = 0;
const POINTS_FROM = Date.UTC(2024, 0, 1);

/** An Overland phone: batches of 25 points, resent until `{"result":"ok"}`. */
async function tracker(ctx: LoadContext): Promise<void> {
  await loop(ctx, 100, async () => {
    const points = Array.from({ length: 25 }, () => {
      const n = nextPoint++;
      return {
        time: POINTS_FROM + n * 1000,
        lat: (48 + (n % 5000) * 0.0001).toFixed(4),
        lon: (11 + Math.floor(n / 5000) * 0.0001).toFixed(4),
      };
    });
    const body = JSON.stringify({
      locations: points.map((p) => ({
        type: 'Feature',
        geometry: { type: 'Point', coordinates: [Number(p.lon), Number(p.lat)] },
        properties: { timestamp: new Date(p.time).toISOString(), horizontal_accuracy: 5 },
      })),
    });
    const sent = await untilAcknowledged(ctx, 'tracker batch', 40, async () => {
      const response = await fetch(ctx.services.ingestUrl, {
        method: 'POST',
        headers: { authorization: `Bearer ${ctx.services.ingestToken}`, 'content-type': 'application/json' },
        body,
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      await expectStatus(response, 200, 'tracker batch');
      const answer = (await response.json()) as { result?: string };
      if (answer.result !== 'ok') throw new WrongAnswer(`tracker batch answered ${JSON.stringify(answer)}`);
      return true;
    });
    if (sent) for (const p of points) ctx.ledger.points.add(`${p.time} ${p.lat} ${p.lon}`);
  });
}

async function upload(ctx: LoadContext, kind: Medium['kind'], bytes: Buffer, scope: Medium['scope']): Promise<void> {
  const form = new FormData();
  form.append('scope', scope);
  const [name, type] = kind === 'image' ? ['photo.jpg', 'image/jpeg'] : ['clip.mp4', 'video/mp4'];
  form.append('file', new Blob([new Uint8Array(bytes)], { type }), name);
  await ctx.tally.run(`${kind} upload`, async () => {
    const response = await request(ctx, '/media', { method: 'POST', headers: bearer(ctx), body: form });
    await expectStatus(response, 201, `${kind} upload`);
    const medium = (await response.json()) as { id: string; sha256: string; size: number; kind: string };
    if (medium.sha256 !== sha(bytes) || medium.size !== bytes.length || medium.kind !== kind) {
      throw new WrongAnswer(`${kind} upload answered ${JSON.stringify(medium)} for ${sha(bytes)}`);
    }
    ctx.ledger.media.push({ id: medium.id, sha256: medium.sha256, size: medium.size, kind, scope });
  });
}

let photos = 0;
async function photographer(ctx: LoadContext): Promise<void> {
  await loop(ctx, 150, async () => {
    const noise = { type: 'gaussian' as const, mean: 128, sigma: 40 };
    const bytes = await sharp({ create: { width: 48, height: 32, channels: 3, background: '#808080', noise } })
      .jpeg()
      .toBuffer();
    await upload(ctx, 'image', bytes, photos++ % 2 === 0 ? 'public' : 'private');
  });
}

let clips = 0;
async function filmer(ctx: LoadContext): Promise<void> {
  await loop(ctx, 1000, async () => {
    const n = clips++;
    await upload(ctx, 'video', ctx.videos[n % ctx.videos.length]!, n % 3 === 0 ? 'public' : 'private');
  });
}

/** Posts to the webhook group, some with a public photo; resent with the same Idempotency-Key until acknowledged. */
async function poster(ctx: LoadContext): Promise<void> {
  let n = 0;
  await loop(ctx, 200, async () => {
    n += 1;
    const key = randomUUID();
    const photo = ctx.ledger.media.filter((m) => m.kind === 'image' && m.scope === 'public').at(-1);
    const scope = n % 2 === 0 ? 'public' : 'private';
    const text = `Post ${n} from the several-node test (${key.slice(0, 8)})`;
    const body = JSON.stringify({
      text,
      groups: [ctx.services.groupId],
      scope,
      ...(n % 3 === 0 && photo ? { media_ids: [photo.id] } : {}),
    });
    const post = await untilAcknowledged(ctx, 'post', 40, async () => {
      const response = await request(ctx, '/posts', {
        method: 'POST',
        headers: { ...bearer(ctx), 'content-type': 'application/json', 'idempotency-key': key },
        body,
      });
      await expectStatus(response, 202, 'post');
      const answer = (await response.json()) as { id: string; text: string; scope: string };
      if (answer.text !== text || answer.scope !== scope)
        throw new WrongAnswer(`post answered ${JSON.stringify(answer)}`);
      return answer;
    });
    if (post) ctx.ledger.posts.push({ id: post.id, scope, text });
  });
}

const IMPORTS_FROM = Date.UTC(2023, 0, 1);
/** Points of each import: enough that one runs for a few seconds, so a worker's death finds one in hand. */
export const IMPORT_POINTS = 3000;
let imports = 0;
/** A GPX file (its own day of 2023) every few seconds. */
async function importer(ctx: LoadContext): Promise<void> {
  await loop(ctx, 2500, async () => {
    const start = IMPORTS_FROM + imports++ * 86_400_000;
    const points = Array.from(
      { length: IMPORT_POINTS },
      (_, i) =>
        `<trkpt lat="${(47 + i * 0.00001).toFixed(5)}" lon="${(9 + imports * 0.001).toFixed(4)}"><time>${new Date(start + i * 10_000).toISOString()}</time></trkpt>`,
    ).join('');
    const gpx = `<?xml version="1.0"?><gpx version="1.1" creator="nodes-test"><trk><trkseg>${points}</trkseg></trk></gpx>`;
    const form = new FormData();
    form.append('file', new Blob([gpx], { type: 'application/gpx+xml' }), `walk-${imports}.gpx`);
    await ctx.tally.run('import upload', async () => {
      const response = await request(ctx, '/imports', { method: 'POST', headers: bearer(ctx), body: form });
      await expectStatus(response, 202, 'import upload');
      ctx.ledger.imports.push(((await response.json()) as { id: string }).id);
    });
  });
}

/** The whole account as a ZIP, read to its end: it must end with the ZIP's end record. */
async function exporter(ctx: LoadContext): Promise<void> {
  await loop(ctx, 3000, async () => {
    await ctx.tally.run('export', async () => {
      const response = await request(ctx, '/export', { headers: bearer(ctx) });
      await expectStatus(response, 200, 'export');
      const zip = new Uint8Array(await response.arrayBuffer());
      const end = Buffer.from(zip.subarray(Math.max(0, zip.length - 22)));
      if (zip.length < 1000 || end.readUInt32LE(0) !== 0x06054b50) {
        throw new WrongAnswer(`the export of ${zip.length} bytes does not end with a ZIP end record`);
      }
      ctx.ledger.exports += 1;
    });
  });
}

/** A stranger reading the public pages: only public posts, all the walker's. */
async function reader(ctx: LoadContext): Promise<void> {
  let n = 0;
  await loop(ctx, 50, async () => {
    n += 1;
    if (n % 2 === 0) {
      await ctx.tally.run('public posts', async () => {
        const response = await request(ctx, `/posts/public/${USERNAME}?count=20`);
        await expectStatus(response, 200, 'public posts');
        const posts = (await response.json()) as { username: string; scope: string }[];
        const wrong = posts.find((post) => post.scope !== 'public' || post.username !== USERNAME);
        if (wrong) throw new WrongAnswer(`a public collection held ${JSON.stringify(wrong)}`);
      });
    } else {
      await ctx.tally.run('public page', async () => {
        const response = await request(ctx, `/@${USERNAME}`);
        await expectStatus(response, 200, 'public page');
        const html = await response.text();
        if (!html.includes('h-card')) throw new WrongAnswer('the public page has no h-card');
      });
    }
  });
}

/** The owner's app reading stored media back: whole, and by range for videos, the bytes acknowledged. */
async function viewer(ctx: LoadContext, videos: Map<string, Buffer>): Promise<void> {
  await loop(ctx, 100, async () => {
    const medium = ctx.ledger.media[Math.floor(Math.random() * ctx.ledger.media.length)];
    if (!medium) return;
    await ctx.tally.run('medium read', async () => {
      const video = medium.kind === 'video' ? videos.get(medium.sha256) : undefined;
      const range = video ? { range: 'bytes=100-199' } : {};
      const response = await request(ctx, `/media/id/${medium.id}/file`, { headers: { ...bearer(ctx), ...range } });
      await expectStatus(response, video ? 206 : 200, 'medium read');
      const bytes = new Uint8Array(await response.arrayBuffer());
      const right = video ? Buffer.from(bytes).equals(video.subarray(100, 200)) : sha(bytes) === medium.sha256;
      if (!right) throw new WrongAnswer(`medium ${medium.id} read back other bytes`);
    });
  });
}

/** An app refreshing its token and using the new one; a chain whose rotated answer was lost starts again. */
async function refresher(ctx: LoadContext): Promise<void> {
  let session = await signIn(ctx.baseUrl);
  let ambiguous = false;
  await loop(ctx, 1000, async () => {
    await ctx.tally.run('token refresh', async () => {
      const response = await oauth
        .refreshTokenGrantRequest(session.as, session.client, oauth.None(), session.refreshToken, insecure)
        .catch((error: unknown) => {
          ambiguous = true;
          throw error;
        });
      if (response.status >= 500) {
        ambiguous = true;
        await expectStatus(response, 200, 'token refresh');
      }
      try {
        const tokens = await oauth.processRefreshTokenResponse(session.as, session.client, response);
        session = { ...session, accessToken: tokens.access_token, refreshToken: tokens.refresh_token! };
        ambiguous = false;
      } catch (error) {
        if (!(error instanceof oauth.ResponseBodyError) || error.error !== 'invalid_grant' || !ambiguous) throw error;
        // The last refresh was rotated but its answer lost: the old token is spent, the grant revoked.
        ctx.ledger.chainsLost += 1;
        session = await signIn(ctx.baseUrl);
        ambiguous = false;
        throw new Retryable('refresh chain restarted after a lost answer');
      }
      const check = await request(ctx, '/permissions', {
        headers: { authorization: `Bearer ${session.accessToken}` },
      });
      await expectStatus(check, 200, 'permissions with a refreshed token');
      const granted = ((await check.json()) as { name: string; granted: boolean }[]).filter((p) => p.granted);
      if (!granted.some((p) => p.name === 'export')) throw new WrongAnswer('a refreshed token lost its permissions');
      ctx.ledger.refreshes += 1;
    });
  });
}

/** Every client, running until `ctx.stopped()`. */
export function startLoad(ctx: LoadContext): Promise<void> {
  const videos = new Map(ctx.videos.map((video) => [sha(video), video]));
  return Promise.all([
    tracker(ctx),
    tracker(ctx),
    photographer(ctx),
    filmer(ctx),
    poster(ctx),
    importer(ctx),
    exporter(ctx),
    reader(ctx),
    reader(ctx),
    viewer(ctx, videos),
    refresher(ctx),
  ]).then(() => undefined);
}
