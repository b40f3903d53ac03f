// Creates or drops a PostgreSQL database: `pg-database.ts create|drop postgres://.../name`.
// Used by .ci/run for a fresh database per run, without needing the psql client.
import pg from 'pg';

const [action, url] = process.argv.slice(2);
if ((action !== 'create' && action !== 'drop') || !url) {
  process.stderr.write('usage: pg-database.ts create|drop postgres://user@host:port/name\n');
  process.exit(2);
}
const target = new URL(url);
const name = decodeURIComponent(target.pathname.slice(1));
if (!/^[A-Za-z0-9_]+$/.test(name)) {
  process.stderr.write(`not a plain database name: ${name}\n`);
  process.exit(2);
}
target.pathname = '/postgres';
const client = new pg.Client({ connectionString: target.toString() });
await client.connect();
try {
  await client.query(action === 'create' ? `create database ${name}` : `drop database if exists ${name} with (force)`);
  process.stderr.write(`${action === 'create' ? 'created' : 'dropped'} database ${name}\n`);
} finally {
  await client.end();
}
