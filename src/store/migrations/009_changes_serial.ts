import type { Kysely } from 'kysely';

/**
 * Journal rows by serial within a domain, as IXFR and the DNS server's patches (services/zones.ts
 * changedSince) read them: without it each such read went through every journal row of the domain.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('changes_domain_serial').on('changes').columns(['domain_id', 'serial']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('changes_domain_serial').execute();
}
