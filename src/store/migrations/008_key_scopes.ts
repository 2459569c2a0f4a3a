import type { Kysely } from 'kysely';

/**
 * API key scopes (model/key-scope.ts), JSON; '{}' is a key without limits, which every key made before
 * was. The change journal names the API key of each change by id as well as by label (labels may be empty
 * or repeated); null for changes made without one (DNS UPDATE, the command line, the server itself).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('api_keys').addColumn('scope', 'text', (c) => c.notNull().defaultTo('{}')).execute();
  await db.schema.alterTable('changes').addColumn('key_id', 'integer').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('changes').dropColumn('key_id').execute();
  await db.schema.alterTable('api_keys').dropColumn('scope').execute();
}
