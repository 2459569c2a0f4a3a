import type { Kysely } from 'kysely';

/**
 * What the operator sets on an account (`zonehost account set`): whether it is suspended (its keys, TSIG
 * keys and sign-ins refused; its zones still served), and its own limits on domains and on records per
 * domain, null where the node's defaults (--max-domains, --max-records) hold.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('accounts').addColumn('status', 'text', (c) => c.notNull().defaultTo('active')).execute();
  await db.schema.alterTable('accounts').addColumn('max_domains', 'integer').execute();
  await db.schema.alterTable('accounts').addColumn('max_records', 'integer').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ['max_records', 'max_domains', 'status']) await db.schema.alterTable('accounts').dropColumn(column).execute();
}
