import type { Kysely } from 'kysely';
import { timeColumn } from './helpers.js';

/** Transfer state and last good copy of each zone mirror (slave domain). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('mirror_state')
    .addColumn('domain_id', 'integer', (c) => c.primaryKey().references('domains.id').onDelete('cascade'))
    .addColumn('serial', timeColumn(db))
    .addColumn('last_success', timeColumn(db))
    .addColumn('last_attempt', timeColumn(db))
    .addColumn('last_error', 'text')
    // The last good zone as JSON (an array of resource records in dns-packet's shape); served until it expires.
    .addColumn('zone', 'text')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('mirror_state').execute();
}
