import type { Kysely } from 'kysely';

/**
 * How a master domain was declared through the PowerDNS API: 'native' or 'master' (PowerDNS's two kinds of a
 * zone it is the primary of), kept so that the door answers the kind a client set. Every existing domain is
 * 'native', PowerDNS's default kind. Nothing else reads it: zonehost serves and notifies both alike.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('domains').addColumn('primary_kind', 'text', (c) => c.notNull().defaultTo('native')).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('domains').dropColumn('primary_kind').execute();
}
