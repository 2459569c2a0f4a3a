import type { Kysely } from 'kysely';

/** A domain's tags (Linode API v4's `tags`), a JSON array of strings; every existing domain has none. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('domains').addColumn('tags', 'text', (c) => c.notNull().defaultTo('[]')).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('domains').dropColumn('tags').execute();
}
