// The baseline of `npm run bench:ingest`: a minimal hand-written node:http + better-sqlite3
// server doing the same work as Waypost's ingest route for an Overland batch, and no more:
// read the body, look the service up by id and compare the token's SHA-256, parse the JSON,
// insert the Point features in one transaction with the uniqueness check, with the same
// durability (WAL, synchronous=FULL), and answer {"result":"ok"} after the commit. The
// SQLite file (migrated and seeded by the runner) is argv[2]. Prints `{port}`.
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import { newId } from '../src/lib/ids.ts';
import { openBare } from './seed.ts';

interface Feature {
  geometry?: { type?: string; coordinates?: number[] };
  properties?: { timestamp?: string; altitude?: number; horizontal_accuracy?: number; speed?: number; course?: number };
}

const db = openBare(process.argv[2] ?? '');
const findService = db.prepare<[string], { user_id: string; ingest_token_hash: string | null; enabled: number }>(
  'select user_id, ingest_token_hash, enabled from services where id = ?',
);
const insert = db.prepare(
  `insert into locations (user_id, id, scope, time, created_at, lat, lon, alt, accuracy, speed, heading, source)
   values (?, ?, 'private', ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict (user_id, time, lat, lon) do nothing`,
);
const store = db.transaction((userId: string, source: string, features: Feature[]) => {
  const now = Date.now();
  for (const { geometry, properties = {} } of features) {
    if (geometry?.type !== 'Point' || !geometry.coordinates) continue;
    const [lon, lat] = geometry.coordinates;
    const time = Date.parse(properties.timestamp ?? '');
    insert.run(
      userId,
      newId(),
      time,
      now,
      lat,
      lon,
      properties.altitude ?? null,
      properties.horizontal_accuracy ?? null,
      properties.speed ?? null,
      properties.course ?? null,
      source,
    );
  }
});

function refuse(response: ServerResponse, status: number) {
  response.writeHead(status, { 'content-type': 'application/problem+json' });
  response.end(JSON.stringify({ status }));
}

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const id = request.url?.split('/')[2] ?? '';
    const token = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
    const service = findService.get(id);
    const hash = createHash('sha256').update(token).digest();
    if (!service?.ingest_token_hash || !timingSafeEqual(hash, Buffer.from(service.ingest_token_hash, 'hex'))) {
      return refuse(response, 401);
    }
    let body: { locations?: Feature[] };
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { locations?: Feature[] };
    } catch {
      return refuse(response, 400);
    }
    store(service.user_id, id, body.locations ?? []);
    response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    response.end('{"result":"ok"}');
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as { port: number }).port })}\n`);
});
