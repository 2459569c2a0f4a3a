import { sql, type Kysely } from 'kysely';
import { idColumn, idKey, timeColumn } from './helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('accounts')
    .addColumn('id', idColumn(db), idKey(db))
    .addColumn('username', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', timeColumn(db), (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', idColumn(db), idKey(db))
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('created_at', timeColumn(db), (c) => c.notNull())
    .addColumn('expires_at', timeColumn(db))
    .execute();
  await db.schema.createIndex('api_keys_account').on('api_keys').column('account_id').execute();

  await db.schema
    .createTable('domains')
    .addColumn('id', idColumn(db), idKey(db))
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    // Names are stored lower case, so this enforces service-wide uniqueness regardless of case.
    .addColumn('domain', 'text', (c) => c.notNull().unique())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('soa_email', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('refresh', 'integer', (c) => c.notNull())
    .addColumn('retry', 'integer', (c) => c.notNull())
    .addColumn('expire', 'integer', (c) => c.notNull())
    .addColumn('ttl', 'integer', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('master_ips', 'text', (c) => c.notNull())
    .addColumn('axfr_ips', 'text', (c) => c.notNull())
    .addColumn('display_group', 'text', (c) => c.notNull())
    .addColumn('serial', timeColumn(db), (c) => c.notNull())
    .addColumn('created_at', timeColumn(db), (c) => c.notNull())
    .addColumn('updated_at', timeColumn(db), (c) => c.notNull())
    .execute();
  await db.schema.createIndex('domains_account').on('domains').columns(['account_id', 'domain']).execute();

  await db.schema
    .createTable('records')
    .addColumn('id', idColumn(db), idKey(db))
    .addColumn('domain_id', 'integer', (c) => c.notNull().references('domains.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('priority', 'integer', (c) => c.notNull())
    .addColumn('weight', 'integer', (c) => c.notNull())
    .addColumn('port', 'integer', (c) => c.notNull())
    .addColumn('protocol', 'text', (c) => c.notNull())
    .addColumn('ttl', 'integer', (c) => c.notNull())
    .addColumn('tag', 'text', (c) => c.notNull())
    .addColumn('created_at', timeColumn(db), (c) => c.notNull())
    .addColumn('updated_at', timeColumn(db), (c) => c.notNull())
    .execute();
  await db.schema.createIndex('records_domain').on('records').columns(['domain_id', 'id']).execute();
  await sql`create index records_domain_name on records (domain_id, lower(name))`.execute(db);

  await db.schema
    .createTable('changes')
    .addColumn('id', idColumn(db), idKey(db))
    // No foreign key: the journal outlives a deleted domain (audit trail).
    .addColumn('domain_id', 'integer', (c) => c.notNull())
    .addColumn('account_id', 'integer')
    .addColumn('serial', timeColumn(db), (c) => c.notNull())
    .addColumn('at', timeColumn(db), (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('object_id', 'integer')
    .addColumn('key_label', 'text', (c) => c.notNull())
    .addColumn('iface', 'text', (c) => c.notNull())
    .addColumn('remote_addr', 'text', (c) => c.notNull())
    .addColumn('before', 'text', (c) => c.notNull())
    .addColumn('after', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('changes_domain').on('changes').columns(['domain_id', 'id']).execute();
  await db.schema.createIndex('changes_account').on('changes').columns(['account_id', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['changes', 'records', 'domains', 'api_keys', 'accounts']) await db.schema.dropTable(t).execute();
}
