import type { Kysely } from 'kysely';
import { timeColumn } from './helpers.js';

/**
 * The secrets of DNS server cookies (RFC 7873, RFC 9018), one per period (a day, model/cookie-secret.ts), in the
 * database so every node of a cluster makes and accepts the same cookies. The period is the key: the first
 * node to make a period's secret wins, the others read it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('cookie_secrets')
    .addColumn('period', 'integer', (c) => c.primaryKey())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('created_at', timeColumn(db), (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('cookie_secrets').execute();
}
