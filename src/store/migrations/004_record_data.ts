import type { Kysely } from 'kysely';
import { Problems } from '../../model/errors.js';
import { recordType, type V3Columns } from '../../model/records/index.js';

const PAGE = 1000;
const COLUMNS = ['target', 'priority', 'weight', 'port', 'protocol', 'tag'] as const;

/**
 * Records keep their type's own fields in one JSON column, `data`, instead of interface A's eight overloaded
 * columns (which interface A now derives from it): a new type needs no migration of its own. Each row is
 * mapped by its type's interface A mapping, as a v3 write of the same columns would be; the change journal's
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

type OldRecord = V3Columns & { type: string; id?: number; domainId?: number };

/** The new shape of an old record image: `{type, name, ttl, data}` (with id and domainId when it had them). */
function mapped(old: OldRecord, zone: string): Record<string, unknown> {
  const t = recordType(old.type);
  const cols: V3Columns = { name: old.name, target: old.target, priority: old.priority, weight: old.weight, port: old.port, protocol: old.protocol, ttl: old.ttl, tag: old.tag ?? '' };
  const rec = t?.v3 ? t.v3.fromV3(cols, { zone }, new Problems()) : { type: old.type, name: old.name, ttl: old.ttl, data: { target: old.target } };
  const ids = old.id === undefined ? {} : { id: old.id, domainId: old.domainId };
  // fromV3 may fold the name (SRV); a stored one is canonical already.
  return { ...ids, type: old.type, name: old.name, ttl: old.ttl, data: rec.data };
}

async function convert(db: Kysely<any>): Promise<void> {
  const zones = new Map<number, string>();
  const zoneOf = async (domainId: number): Promise<string> => {
    let z = zones.get(domainId);
    if (z === undefined) {
      const row = await db.selectFrom('domains').select('domain').where('id', '=', domainId).executeTakeFirst();
      z = (row?.domain as string | undefined) ?? '';
      zones.set(domainId, z);
    }
    return z;
  };
  for (let after = 0; ; ) {
    const rows = await db.selectFrom('records').selectAll().where('id', '>', after).orderBy('id').limit(PAGE).execute();
    for (const row of rows) {
      const rec = mapped({ ...row, priority: Number(row.priority), weight: Number(row.weight), port: Number(row.port), ttl: Number(row.ttl) } as OldRecord, await zoneOf(Number(row.domain_id)));
      await db.updateTable('records').set({ data: JSON.stringify(rec.data) }).where('id', '=', row.id).execute();
      after = Number(row.id);
    }
    if (rows.length < PAGE) break;
  }
  for (let after = 0; ; ) {
    const rows = await db.selectFrom('changes').select(['id', 'domain_id', 'before', 'after']).where('action', 'like', 'record.%').where('id', '>', after).orderBy('id').limit(PAGE).execute();
    for (const row of rows) {
      const zone = await zoneOf(Number(row.domain_id));
      const image = (json: string): string => {
        const old = JSON.parse(json) as OldRecord | null;
        return JSON.stringify(old && typeof old === 'object' && 'target' in old ? mapped(old, zone) : old);
      };
      await db.updateTable('changes').set({ before: image(row.before as string), after: image(row.after as string) }).where('id', '=', row.id).execute();
      after = Number(row.id);
    }
    if (rows.length < PAGE) break;
  }
  await db.updateTable('mirror_state').set({ zone: null, serial: null }).execute();
}
