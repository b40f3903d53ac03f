// Views: saved queries over a person's items (docs/api.md "Objects": view). `kinds` and `filters`
// are JSON: they are read whole with the view and never searched by the database.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('views')
    .addColumn('user_id', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('description', 'text', (col) => col.notNull())
    .addColumn('kinds', 'text', (col) => col.notNull()) // JSON array: posts, media, locations
    .addColumn('filters', 'text', (col) => col.notNull()) // JSON object, times in milliseconds
    .addColumn('scope', 'text', (col) => col.notNull().check(sql`scope in ('public', 'private')`))
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .execute();
  // GET /views lists one person's views in creation order.
  await db.schema.createIndex('views_user_created').on('views').columns(['user_id', 'created_at', 'id']).execute();
}
