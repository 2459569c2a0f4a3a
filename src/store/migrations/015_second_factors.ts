import type { Kysely } from 'kysely';
import { idColumn, idKey, timeColumn } from './helpers.js';

/**
 * Second factors (docs/security.md): each user's TOTP secret (confirmed or not yet) with the last time step
 * a code was accepted at, their one-time recovery codes (hashed), their passkeys (WebAuthn credentials), and
 * the WebAuthn challenges handed out and not yet answered (in the database, so any node of a cluster can
 * take the answer). Everything is keyed by `user_id` without a foreign key: a user is an account's id until
 * accounts have members (migration 014), whose user ids these then are.
 * `accounts.require_2fa`: members without a second factor may only set one up. `api_keys.session`: the key
 * is a sign-in of the panel (a password or a passkey made it, for a working day), which a password change
 * revokes; labelled API keys stay.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('accounts').addColumn('require_2fa', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('api_keys').addColumn('session', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema
    .createTable('totp_secrets')
    .addColumn('user_id', 'integer', (c) => c.primaryKey())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_step', timeColumn(db))
    .addColumn('created_at', timeColumn(db), (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('recovery_codes')
    .addColumn('id', idColumn(db), idKey(db))
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('used_at', timeColumn(db))
    .execute();
  await db.schema.createIndex('recovery_codes_user').on('recovery_codes').columns(['user_id', 'code_hash']).execute();
  await db.schema
    .createTable('passkeys')
    .addColumn('id', idColumn(db), idKey(db))
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('credential_id', 'text', (c) => c.notNull().unique())
    .addColumn('public_key', 'text', (c) => c.notNull())
    .addColumn('counter', timeColumn(db), (c) => c.notNull())
    .addColumn('transports', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', timeColumn(db), (c) => c.notNull())
    .addColumn('last_used_at', timeColumn(db))
    .execute();
  await db.schema.createIndex('passkeys_user').on('passkeys').column('user_id').execute();
  await db.schema
    .createTable('webauthn_challenges')
    .addColumn('challenge', 'text', (c) => c.primaryKey())
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('user_id', 'integer')
    .addColumn('expires_at', timeColumn(db), (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['webauthn_challenges', 'passkeys', 'recovery_codes', 'totp_secrets']) await db.schema.dropTable(table).execute();
  await db.schema.alterTable('api_keys').dropColumn('session').execute();
  await db.schema.alterTable('accounts').dropColumn('require_2fa').execute();
}
