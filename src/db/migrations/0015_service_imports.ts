// Services that bring posts in (docs/design.md "Bringing posts in"): feeds and Mastodon accounts
// polled as jobs, and the delivery rules that keep an echo out.
//
// - `posts.source_url`: where an imported post lives outside (the entry's link, the status's
//   URL); null for posts written here.
// - `service_polls`: one row per polling service: the validators of conditional GET, Mastodon's
//   `since_id`, and how many polls in a row failed (the backoff).
// - `imported_entries`: every entry a service has shown, by its key (the entry's id, else its
//   link), so each is stored once; `post_id` is null for entries seen but not imported (older
//   than the first poll's backlog, an echo, a boost). `url` finds an entry whose id changed.
// - `deliveries_user_remote_url`: the echo rule looks an imported entry's URL up among the
//   person's deliveries.
// - `jobs_poll_once`: at most one queued or running poll job per service, so two workers never
//   poll one service at once and a second "schedule the next poll" adds nothing.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('posts').addColumn('source_url', 'text').execute();

  await db.schema
    .createTable('service_polls')
    .addColumn('user_id', 'text', (col) => col.notNull())
    .addColumn('service_id', 'text', (col) => col.notNull().references('services.id').onDelete('cascade'))
    .addColumn('etag', 'text')
    .addColumn('last_modified', 'text')
    .addColumn('cursor', 'text')
    .addColumn('failures', 'integer', (col) => col.notNull())
    .addColumn('polled_at', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('service_polls_pk', ['user_id', 'service_id'])
    .execute();

  await db.schema
    .createTable('imported_entries')
    .addColumn('user_id', 'text', (col) => col.notNull())
    .addColumn('service_id', 'text', (col) => col.notNull().references('services.id').onDelete('cascade'))
    .addColumn('key', 'text', (col) => col.notNull())
    .addColumn('url', 'text')
    .addColumn('post_id', 'text')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('imported_entries_pk', ['user_id', 'service_id', 'key'])
    .execute();
  await db.schema
    .createIndex('imported_entries_user_service_url')
    .on('imported_entries')
    .columns(['user_id', 'service_id', 'url'])
    .execute();

  await db.schema
    .createIndex('deliveries_user_remote_url')
    .on('deliveries')
    .columns(['user_id', 'remote_url'])
    .execute();
  await sql`create unique index jobs_poll_once on jobs (ref) where kind = 'poll' and status in ('queued', 'running')`.execute(
    db,
  );
}
