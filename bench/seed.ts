// Seeding straight through better-sqlite3 (fast, one transaction per chunk): a user and many
// posts, and location rows for the bare-insert baseline.
import SQLite from 'better-sqlite3';
import { newId } from '../src/lib/ids.ts';

export const BASE_TIME = 1_600_000_000_000;

export function openBare(path: string): SQLite.Database {
  const db = new SQLite(path);
  // The same durability settings Waypost opens SQLite with (src/db/database.ts).
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  return db;
}

export function seedUser(db: SQLite.Database, username: string): string {
  const id = newId();
  db.prepare(
    `insert into users (id, username, username_key, password_hash, display_name, bio, created_at, updated_at)
     values (?, ?, ?, 'x', ?, '', ?, ?)`,
  ).run(id, username, username.toLowerCase(), username, BASE_TIME, BASE_TIME);
  return id;
}

/** `count` public posts, one a second, text of a realistic length. */
export function seedPosts(db: SQLite.Database, userId: string, count: number): void {
  const insert = db.prepare(
    `insert into posts (user_id, id, scope, time, created_at, text, media_ids, lat, lon, source)
     values (?, ?, 'public', ?, ?, ?, '[]', null, null, null)`,
  );
  const chunk = db.transaction((start: number, end: number) => {
    for (let i = start; i < end; i += 1) {
      const time = BASE_TIME + i * 1000;
      insert.run(userId, newId(), time, time, `Post number ${i}: a short note of about the length people write.`);
    }
  });
  for (let start = 0; start < count; start += 50_000) chunk(start, Math.min(count, start + 50_000));
}

export interface PointRow {
  time: number;
  lat: number;
  lon: number;
  alt: number;
  accuracy: number;
}

/** Batch `b` of 1000 points: distinct times, a walk near Berlin. */
export function pointBatch(b: number, size = 1000): PointRow[] {
  return Array.from({ length: size }, (_, j) => {
    const i = b * size + j;
    return {
      time: BASE_TIME + i * 1000,
      lat: 52.5 + (i % 997) / 1e4,
      lon: 13.4 + (i % 991) / 1e4,
      alt: 34,
      accuracy: 5,
    };
  });
}

/** The bare baseline: the same rows, one prepared INSERT per point, one transaction per batch. */
export function bareInsert(db: SQLite.Database, userId: string, batches: PointRow[][]): void {
  const insert = db.prepare(
    `insert into locations (user_id, id, scope, time, created_at, lat, lon, alt, accuracy, speed, heading, source)
     values (?, ?, 'private', ?, ?, ?, ?, ?, ?, null, null, null)
     on conflict (user_id, time, lat, lon) do nothing`,
  );
  const batch = db.transaction((points: PointRow[]) => {
    const now = Date.now();
    for (const p of points) insert.run(userId, newId(), p.time, now, p.lat, p.lon, p.alt, p.accuracy);
  });
  for (const points of batches) batch(points);
}

/** `count` private points, one a second, and private posts and media rows alike (no files). */
export function seedPrivateItems(
  db: SQLite.Database,
  userId: string,
  counts: { locations: number; posts: number; media: number },
) {
  const point = db.prepare(
    `insert into locations (user_id, id, scope, time, created_at, lat, lon, alt, accuracy, speed, heading, source)
     values (?, ?, 'private', ?, ?, ?, ?, 34, 5, 1.5, 90, null)`,
  );
  const post = db.prepare(
    `insert into posts (user_id, id, scope, time, created_at, text, media_ids, lat, lon, source)
     values (?, ?, 'private', ?, ?, ?, ?, 52.52, 13.405, null)`,
  );
  const medium = db.prepare(
    `insert into media (user_id, id, scope, time, created_at, kind, mime_type, size, sha256, width, height, duration,
                        lat, lon, caption, has_thumbnail, source)
     values (?, ?, 'private', ?, ?, 'image', 'image/jpeg', 2345678, ?, 4032, 3024, null, 52.52, 13.405, ?, 1, null)`,
  );
  const chunk = db.transaction((start: number, end: number) => {
    for (let i = start; i < end; i += 1) {
      const time = BASE_TIME + i * 1000;
      if (i < counts.locations) point.run(userId, newId(), time, time, 52.5 + (i % 997) / 1e4, 13.4 + (i % 991) / 1e4);
      if (i < counts.posts) {
        post.run(
          userId,
          newId(),
          time,
          time,
          `Private note ${i}: a short note of about the length people write.`,
          '["01JB2Q7Y8XWZ5V3K4M6N8P0R2S"]',
        );
      }
      if (i < counts.media) medium.run(userId, newId(), time, time, 'ab'.repeat(32), `Photo ${i} by the lake`);
    }
  });
  const total = Math.max(counts.locations, counts.posts, counts.media);
  for (let start = 0; start < total; start += 50_000) chunk(start, Math.min(total, start + 50_000));
}
