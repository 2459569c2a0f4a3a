import { sql, type Kysely } from 'kysely';
import { timeColumn } from './helpers.js';

/**
 * The catalog zone's serial (RFC 9432), one row: kept in the database, not counted per node, so every node
 * of a PostgreSQL cluster serves the same catalog. Raised in the transaction of every membership change.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('catalog')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('serial', timeColumn(db), (c) => c.notNull())
    .execute();
  // Starts at the clock (seconds), as zone serials do, so it is ahead of any catalog served before.
  await db
    .insertInto('catalog')
    .values({ id: 1, serial: sql`${Math.floor(Date.now() / 1000)}` })
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('catalog').execute();
}
