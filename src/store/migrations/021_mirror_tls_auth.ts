import type { Kysely } from 'kysely';

/**
 * How a zone mirror verifies its masters' certificate over TLS: JSON {name, ca} (the name the certificate must
 * hold; the CA certificates in PEM, or null for the system's), or null for opportunistic TLS, as every existing
 * mirror keeps.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('domains').addColumn('master_tls_auth', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('domains').dropColumn('master_tls_auth').execute();
}
