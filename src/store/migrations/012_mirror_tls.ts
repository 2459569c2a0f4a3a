import type { Kysely } from 'kysely';

/** Whether a zone mirror asks its masters over TLS (RFC 9103); every existing mirror keeps UDP and TCP. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('domains').addColumn('master_tls', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('domains').dropColumn('master_tls').execute();
}
