import type { Kysely } from 'kysely';
import { idColumn, idKey, timeColumn } from './helpers.js';

/**
 * DNSSEC: each signed zone's state, and its keys. A key row is deleted when the key leaves the zone, so its
 * private key does not outlive its use; the private key is stored sealed with the key-encryption key
 * (model/dnssec.ts sealKey), which the database never holds.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('dnssec_zones')
    .addColumn('domain_id', 'integer', (c) => c.primaryKey().references('domains.id').onDelete('cascade'))
    // signed, unsigning or off
    .addColumn('status', 'text', (c) => c.notNull())
    // The mnemonic of the newest key's algorithm (ECDSAP256SHA256, ED25519).
    .addColumn('algorithm', 'text', (c) => c.notNull())
    .addColumn('since', timeColumn(db), (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('dnssec_keys')
    .addColumn('id', idColumn(db), idKey(db))
    .addColumn('domain_id', 'integer', (c) => c.notNull().references('domains.id').onDelete('cascade'))
    .addColumn('algorithm', 'integer', (c) => c.notNull())
    .addColumn('flags', 'integer', (c) => c.notNull())
    // DNSKEY rdata, base64.
    .addColumn('dnskey', 'text', (c) => c.notNull())
    .addColumn('key_tag', 'integer', (c) => c.notNull())
    .addColumn('sealed_key', 'text', (c) => c.notNull())
    // incoming, active or retiring
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('created_at', timeColumn(db), (c) => c.notNull())
    .addColumn('active_at', timeColumn(db))
    .addColumn('retiring_at', timeColumn(db))
    .execute();
  await db.schema.createIndex('dnssec_keys_domain').on('dnssec_keys').columns(['domain_id', 'id']).execute();
  // The timer looks for keys in a rollover and zones being turned off, every second.
  await db.schema.createIndex('dnssec_keys_state').on('dnssec_keys').columns(['state', 'domain_id']).execute();
  await db.schema.createIndex('dnssec_zones_status').on('dnssec_zones').columns(['status', 'domain_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('dnssec_keys').execute();
  await db.schema.dropTable('dnssec_zones').execute();
}
