import type { Kysely } from 'kysely';
import { idColumn, idKey, timeColumn } from './helpers.js';

/**
 * Health checks and steering (issue 32): the `healthchecks` table, owned by an account like TSIG keys, with the
 * status the leader's runner keeps; and records' `steering` column, JSON of {healthcheck, weight, subnets}
 * (null for the many records without), which interface B writes and the DNS server serves by.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('healthchecks')
    .addColumn('id', idColumn(db), idKey(db))
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('port', 'integer', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('host', 'text', (c) => c.notNull())
    .addColumn('interval', 'integer', (c) => c.notNull())
    .addColumn('timeout_ms', 'integer', (c) => c.notNull())
    .addColumn('fall', 'integer', (c) => c.notNull())
    .addColumn('rise', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('unknown'))
    .addColumn('changed_at', timeColumn(db))
    .addColumn('created_at', timeColumn(db), (c) => c.notNull())
    .execute();
  await db.schema.createIndex('healthchecks_account').on('healthchecks').columns(['account_id', 'id']).execute();
  await db.schema.alterTable('records').addColumn('steering', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('records').dropColumn('steering').execute();
  await db.schema.dropTable('healthchecks').execute();
}
