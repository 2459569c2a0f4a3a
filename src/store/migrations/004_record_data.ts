import type { Kysely } from 'kysely';

const PAGE = 1000;
const COLUMNS = ['target', 'priority', 'weight', 'port', 'protocol', 'tag'] as const;

/**
 * Records keep their type's own fields in one JSON column, `data`, instead of interface A's eight overloaded
 * columns (which interface A now derives from it): a new type needs no migration of its own. Each row is
 * mapped by its type's interface A mapping as it was then (DATA_FROM_COLUMNS); the change journal's
 * record images are mapped the same way, so IXFR from a serial before the upgrade still works. Zone mirrors'
 * copies were kept in dns-packet's shape: they are dropped and pulled again at start (a mirror answers
 * REFUSED for the seconds that takes). No `down`.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('records').addColumn('data', 'text', (c) => c.notNull().defaultTo('{}')).execute();
  // Kysely runs a PostgreSQL migration in a transaction already; on SQLite one spares a disk sync per row.
  if (db.isTransaction) await convert(db);
  else await db.transaction().execute(convert);
  for (const c of COLUMNS) await db.schema.alterTable('records').dropColumn(c).execute();
}

/** A record as interface A's columns held it (a row, or a journal image of one). */
interface OldRecord {
  type: string;
  name: string;
  ttl: number;
  target: string;
  priority: number;
  weight: number;
  port: number;
  protocol: string;
  tag?: string;
  id?: number;
  domainId?: number;
}

/**
 * Each type's fields from interface A's columns, as the record-type registry mapped them when this migration was
 * written (its v3 mappings' `fromV3`, less what a stored row cannot hold: a `[remote_addr]` target stays as it
 * is, and the name is not folded); frozen here so that a later change to the registry does not change what this
 * migration does. A type not listed keeps its target as `target`.
 */
const DATA_FROM_COLUMNS: Record<string, (old: OldRecord) => Record<string, unknown>> = {
  A: (old) => ({ address: old.target }),
  AAAA: (old) => ({ address: old.target }),
  CNAME: (old) => ({ target: old.target }),
  MX: (old) => ({ priority: old.priority, mail_server: old.target }),
  NS: (old) => ({ nameserver: old.target }),
  TXT: (old) => ({ text: old.target }),
  SRV: (old) => ({ priority: old.priority, weight: old.weight, port: old.port, target: old.target }),
  CAA: (old) => ({ flags: 0, tag: old.tag ?? '', value: old.target }),
};

/** The record data an old record's columns become. */
export function dataFromColumns(old: OldRecord): Record<string, unknown> {
  const fromColumns = DATA_FROM_COLUMNS[old.type.trim().toUpperCase()];
  return fromColumns ? fromColumns(old) : { target: old.target };
}

/** The new shape of an old record image: `{type, name, ttl, data}` (with id and domainId when it had them). */
function mapped(old: OldRecord): Record<string, unknown> {
  const ids = old.id === undefined ? {} : { id: old.id, domainId: old.domainId };
  return { ...ids, type: old.type, name: old.name, ttl: old.ttl, data: dataFromColumns(old) };
}

async function convert(db: Kysely<any>): Promise<void> {
  for (let after = 0; ; ) {
    const rows = await db.selectFrom('records').selectAll().where('id', '>', after).orderBy('id').limit(PAGE).execute();
    for (const row of rows) {
      const rec = mapped({ ...row, priority: Number(row.priority), weight: Number(row.weight), port: Number(row.port), ttl: Number(row.ttl) } as OldRecord);
      await db.updateTable('records').set({ data: JSON.stringify(rec.data) }).where('id', '=', row.id).execute();
      after = Number(row.id);
    }
    if (rows.length < PAGE) break;
  }
  for (let after = 0; ; ) {
    const rows = await db.selectFrom('changes').select(['id', 'before', 'after']).where('action', 'like', 'record.%').where('id', '>', after).orderBy('id').limit(PAGE).execute();
    for (const row of rows) {
      const image = (json: string): string => {
        const old = JSON.parse(json) as OldRecord | null;
        return JSON.stringify(old && typeof old === 'object' && 'target' in old ? mapped(old) : old);
      };
      await db.updateTable('changes').set({ before: image(row.before as string), after: image(row.after as string) }).where('id', '=', row.id).execute();
      after = Number(row.id);
    }
    if (rows.length < PAGE) break;
  }
  await db.updateTable('mirror_state').set({ zone: null, serial: null }).execute();
}
