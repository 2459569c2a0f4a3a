import type { Kysely } from 'kysely';
import { canonicalIPv6 } from '../../model/names.js';

const PAGE = 1000;

/**
 * AAAA targets rewritten to canonical text (RFC 5952), as the AAAA module now stores them: the duplicate
 * check compares stored text, so a row kept as `2001:DB8:0::1` would let `2001:db8::1` in twice. The
 * served data is unchanged (the same address), so no serial moves. Rows that become identical are left
 * for their owner to delete. No `down`: the old spellings are valid input to older code as they are.
 */
export async function up(db: Kysely<any>): Promise<void> {
  // Kysely runs a PostgreSQL migration in a transaction already; on SQLite one spares a disk sync per row.
  if (db.isTransaction) await canonicalise(db);
  else await db.transaction().execute(canonicalise);
}

async function canonicalise(db: Kysely<any>): Promise<void> {
  let after = 0;
  for (;;) {
    const rows: { id: number; target: string }[] = await db
      .selectFrom('records')
      .select(['id', 'target'])
      .where('type', '=', 'AAAA')
      .where('id', '>', after)
      .orderBy('id')
      .limit(PAGE)
      .execute();
    for (const { id, target } of rows) {
      const canonical = canonicalIPv6(target);
      if (canonical !== target) await db.updateTable('records').set({ target: canonical }).where('id', '=', id).execute();
      after = id;
    }
    if (rows.length < PAGE) return;
  }
}
