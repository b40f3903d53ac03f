// Posts, media and locations: the items, each public or private (docs/api.md "Scopes and who sees what"), and the
// per-user settings that choose the default scope of new items.
//
// docs/design.md "Data model": every item table leads with user_id; each has the two indexes the
// collections page through by keyset, (user_id, scope, time, id) for the public/private
// collections and (user_id, time, id) for the owner's merged views. The primary key is the id
// alone: GET /<kind>/id/<id> looks an object up without knowing its owner.
import { sql, type Kysely } from 'kysely';

type Builder = ReturnType<Kysely<unknown>['schema']['createTable']>;

// A CHECK on the scope values keeps a bug elsewhere from writing a third scope that no query
// would ever show (or hide).
const scopeCheck = sql`scope in ('public', 'private')`;

/** The columns every item has. */
function itemColumns(table: Builder): Builder {
  return table
    .addColumn('user_id', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('scope', 'text', (col) => col.notNull().check(scopeCheck))
    .addColumn('time', 'bigint', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull());
}

async function collectionIndexes(db: Kysely<unknown>, table: string): Promise<void> {
  await db.schema.createIndex(`${table}_scope_time`).on(table).columns(['user_id', 'scope', 'time', 'id']).execute();
  await db.schema.createIndex(`${table}_time`).on(table).columns(['user_id', 'time', 'id']).execute();
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await itemColumns(db.schema.createTable('posts'))
    .addColumn('text', 'text', (col) => col.notNull())
    .addColumn('media_ids', 'text', (col) => col.notNull()) // JSON array of medium ids
    .addColumn('lat', 'double precision')
    .addColumn('lon', 'double precision')
    .addColumn('source', 'text') // the service it came from; null when written here
    .execute();
  await collectionIndexes(db, 'posts');

  await itemColumns(db.schema.createTable('media'))
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('mime_type', 'text', (col) => col.notNull())
    .addColumn('size', 'bigint', (col) => col.notNull())
    .addColumn('sha256', 'text', (col) => col.notNull())
    .addColumn('width', 'integer')
    .addColumn('height', 'integer')
    .addColumn('duration', 'double precision')
    .addColumn('lat', 'double precision')
    .addColumn('lon', 'double precision')
    .addColumn('caption', 'text', (col) => col.notNull())
    .addColumn('has_thumbnail', 'integer', (col) => col.notNull())
    .addColumn('source', 'text')
    .execute();
  await collectionIndexes(db, 'media');

  await itemColumns(db.schema.createTable('locations'))
    .addColumn('lat', 'double precision', (col) => col.notNull())
    .addColumn('lon', 'double precision', (col) => col.notNull())
    .addColumn('alt', 'double precision')
    .addColumn('accuracy', 'double precision')
    .addColumn('speed', 'double precision')
    .addColumn('heading', 'double precision')
    .addColumn('source', 'text')
    .execute();
  await collectionIndexes(db, 'locations');
  // The same point sent twice is stored once (a tracker that retries a batch).
  await db.schema
    .createIndex('locations_point')
    .on('locations')
    .columns(['user_id', 'time', 'lat', 'lon'])
    .unique()
    .execute();

  await db.schema
    .createTable('user_settings')
    .addColumn('user_id', 'text', (col) => col.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('default_post_scope', 'text', (col) => col.notNull())
    .addColumn('default_media_scope', 'text', (col) => col.notNull())
    .addColumn('default_location_scope', 'text', (col) => col.notNull())
    .addColumn('timezone', 'text', (col) => col.notNull())
    .addColumn('public_location_precision_m', 'integer', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .execute();
}
