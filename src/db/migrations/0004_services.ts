// Services, service groups, deliveries, the job queue and idempotency records.
// Portable DDL: booleans are integers 0/1 (better-sqlite3 binds no booleans), times are
// bigint milliseconds, JSON is text.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('services')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('user_id', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('type', 'text', (col) => col.notNull())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('enabled', 'integer', (col) => col.notNull())
    /** The non-secret part of the configuration, JSON. */
    .addColumn('config', 'text', (col) => col.notNull())
    /** The secret part, JSON encrypted with AES-256-GCM (src/services/secrets.ts). */
    .addColumn('secrets', 'text', (col) => col.notNull())
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('services_user_created')
    .on('services')
    .columns(['user_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('service_groups')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('user_id', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('service_groups_user_created')
    .on('service_groups')
    .columns(['user_id', 'created_at', 'id'])
    .execute();

  // Deleting a service or a group removes its memberships (docs/api.md: "Deleting a service removes
  // it from its groups").
  await db.schema
    .createTable('service_group_members')
    .addColumn('user_id', 'text', (col) => col.notNull())
    .addColumn('group_id', 'text', (col) => col.notNull().references('service_groups.id').onDelete('cascade'))
    .addColumn('service_id', 'text', (col) => col.notNull().references('services.id').onDelete('cascade'))
    .addColumn('added_at', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('service_group_members_pk', ['user_id', 'group_id', 'service_id'])
    .execute();
  await db.schema
    .createIndex('service_group_members_user_service')
    .on('service_group_members')
    .columns(['user_id', 'service_id'])
    .execute();

  // One row per (post, service); it outlives the service (status `cancelled`), so no foreign key.
  await db.schema
    .createTable('deliveries')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('user_id', 'text', (col) => col.notNull())
    .addColumn('post_id', 'text', (col) => col.notNull())
    .addColumn('service_id', 'text', (col) => col.notNull())
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('attempts', 'integer', (col) => col.notNull())
    .addColumn('remote_url', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .addUniqueConstraint('deliveries_post_service', ['user_id', 'post_id', 'service_id'])
    .execute();
  await db.schema
    .createIndex('deliveries_user_service_status')
    .on('deliveries')
    .columns(['user_id', 'service_id', 'status'])
    .execute();

  // The queue is the system's, not a person's: workers claim across all users by due time.
  await db.schema
    .createTable('jobs')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('kind', 'text', (col) => col.notNull())
    /** What the job is about (for a delivery, its id), so it can be cancelled. */
    .addColumn('ref', 'text')
    .addColumn('payload', 'text', (col) => col.notNull())
    /** queued | running | done | failed | cancelled */
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('attempts', 'integer', (col) => col.notNull())
    .addColumn('max_attempts', 'integer', (col) => col.notNull())
    .addColumn('run_at', 'bigint', (col) => col.notNull())
    .addColumn('locked_by', 'text')
    .addColumn('locked_until', 'bigint')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('jobs_status_run_at').on('jobs').columns(['status', 'run_at']).execute();
  await db.schema.createIndex('jobs_ref').on('jobs').column('ref').execute();

  // Idempotency-Key records live in the database so any API process can answer a retry
  // (docs/design.md "Growing past one machine").
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('user_id', 'text', (col) => col.notNull())
    .addColumn('scope', 'text', (col) => col.notNull())
    .addColumn('key', 'text', (col) => col.notNull())
    .addColumn('fingerprint', 'text', (col) => col.notNull())
    /** null while the first request is in flight */
    .addColumn('response', 'text')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('expires_at', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['user_id', 'scope', 'key'])
    .execute();
}
