import type { Kysely } from 'kysely';
import { idColumn, idKey, timeColumn } from './helpers.js';

/**
 * TSIG keys (DNS UPDATE and signed transfers), owned by an account like API keys, and a zone mirror's key for
 * its masters. Keys are found by name alone (a TSIG record carries nothing else), so names are unique in the
 * service. The secret is kept as given (base64): signing needs it itself, so it cannot be hashed like an API key.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('tsig_keys')
    .addColumn('id', idColumn(db), idKey(db))
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    // Stored normalised (lower case, no trailing dot), so this is the service-wide uniqueness of names.
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('algorithm', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    // JSON: an array of domain ids; the update scope (true, false or {names?, types?}).
    .addColumn('domains', 'text', (c) => c.notNull())
    .addColumn('update_scope', 'text', (c) => c.notNull())
    .addColumn('transfer', 'integer', (c) => c.notNull())
    .addColumn('created_at', timeColumn(db), (c) => c.notNull())
    .execute();
  await db.schema.createIndex('tsig_keys_account').on('tsig_keys').columns(['account_id', 'id']).execute();
  // JSON {name, algorithm, secret}, or null: a zone mirror's key for its masters.
  await db.schema.alterTable('domains').addColumn('master_tsig', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('domains').dropColumn('master_tsig').execute();
  await db.schema.dropTable('tsig_keys').execute();
}
