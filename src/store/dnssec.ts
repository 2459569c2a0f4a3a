/** DNSSEC: each signed zone's state and its keys (the private halves sealed with the key-encryption key). */
import type { Kysely, Selectable } from 'kysely';
import type { DnssecAlgorithm, DnssecKeyData, DnssecKeyState, DnssecStatus, DnssecZoneState, StoredDnssecKey } from '../model/dnssec.js';
import { num, numOrNull } from './columns.js';
import type { Database, DnssecKeysTable, DnssecZonesTable } from './schema.js';

export interface DnssecStore {
  /** A zone's DNSSEC state; undefined when it was never signed. */
  dnssecZone(domainId: number): Promise<DnssecZoneState | undefined>;
  /** Inserts or replaces a zone's DNSSEC state. */
  saveDnssecZone(z: DnssecZoneState): Promise<void>;
  /** The zone's DNSSEC keys, oldest first. */
  dnssecKeys(domainId: number): Promise<StoredDnssecKey[]>;
  /** The DNSSEC states and keys of the domains with ids `firstId`..`lastId`, read as of one moment (start-up load, API reads). */
  dnssecOfDomains(firstId: number, lastId: number): Promise<{ zones: DnssecZoneState[]; keys: StoredDnssecKey[] }>;
  insertDnssecKey(domainId: number, k: DnssecKeyData, now: number): Promise<StoredDnssecKey>;
  /** Moves a key to `state`, stamping the state's time (active_at, retiring_at) with `now`. */
  setDnssecKeyState(id: number, state: DnssecKeyState, now: number): Promise<void>;
  /** Deletes keys of the domain: these ids, or every one. */
  deleteDnssecKeys(domainId: number, ids?: number[]): Promise<void>;
  /** Any one DNSSEC key of any zone (to check at start that the key-encryption key opens the stored keys). */
  anyDnssecKey(): Promise<StoredDnssecKey | undefined>;
  /** Domains with a DNSSEC step to come: a zone being turned off, or keys in a rollover. */
  dnssecPending(): Promise<number[]>;
}

function toDnssecZone(row: Selectable<DnssecZonesTable>): DnssecZoneState {
  return { domainId: num(row.domain_id), status: row.status as DnssecStatus, algorithm: row.algorithm as DnssecAlgorithm, since: num(row.since) };
}

function toDnssecKey(row: Selectable<DnssecKeysTable>): StoredDnssecKey {
  return {
    id: num(row.id),
    domainId: num(row.domain_id),
    algorithm: num(row.algorithm),
    flags: num(row.flags),
    dnskey: Buffer.from(row.dnskey, 'base64'),
    keyTag: num(row.key_tag),
    sealedKey: row.sealed_key,
    state: row.state as DnssecKeyState,
    createdAt: num(row.created_at),
    activeAt: numOrNull(row.active_at),
    retiringAt: numOrNull(row.retiring_at),
  };
}

export class KyselyDnssecStore implements DnssecStore {
  constructor(private readonly db: Kysely<Database>) {}

  async dnssecZone(domainId: number): Promise<DnssecZoneState | undefined> {
    const row = await this.db.selectFrom('dnssec_zones').selectAll().where('domain_id', '=', domainId).executeTakeFirst();
    return row && toDnssecZone(row);
  }

  async saveDnssecZone(z: DnssecZoneState): Promise<void> {
    const row = { status: z.status, algorithm: z.algorithm, since: z.since };
    await this.db
      .insertInto('dnssec_zones')
      .values({ domain_id: z.domainId, ...row })
      .onConflict((oc) => oc.column('domain_id').doUpdateSet(row))
      .execute();
  }

  async dnssecKeys(domainId: number): Promise<StoredDnssecKey[]> {
    return (await this.db.selectFrom('dnssec_keys').selectAll().where('domain_id', '=', domainId).orderBy('id').execute()).map(toDnssecKey);
  }

  async dnssecOfDomains(firstId: number, lastId: number): Promise<{ zones: DnssecZoneState[]; keys: StoredDnssecKey[] }> {
    // One statement, so one snapshot: a timed step committing between two reads would show a zone
    // already off with the keys it just deleted. A key never exists without its zone's row.
    const rows = await this.db
      .selectFrom('dnssec_zones as z')
      .leftJoin('dnssec_keys as k', 'k.domain_id', 'z.domain_id')
      .selectAll('k')
      .select(['z.domain_id as zone_id', 'z.status as zone_status', 'z.algorithm as zone_algorithm', 'z.since as zone_since'])
      .where('z.domain_id', '>=', firstId)
      .where('z.domain_id', '<=', lastId)
      .orderBy('z.domain_id')
      .orderBy('k.id')
      .execute();
    const zones: DnssecZoneState[] = [];
    const keys: StoredDnssecKey[] = [];
    for (const r of rows) {
      const zone = toDnssecZone({ domain_id: r.zone_id, status: r.zone_status, algorithm: r.zone_algorithm, since: r.zone_since });
      if (zones.at(-1)?.domainId !== zone.domainId) zones.push(zone);
      if (r.id !== null) keys.push(toDnssecKey(r as Selectable<DnssecKeysTable>));
    }
    return { zones, keys };
  }

  async insertDnssecKey(domainId: number, k: DnssecKeyData, now: number): Promise<StoredDnssecKey> {
    const row = await this.db
      .insertInto('dnssec_keys')
      .values({
        domain_id: domainId,
        algorithm: k.algorithm,
        flags: k.flags,
        dnskey: k.dnskey.toString('base64'),
        key_tag: k.keyTag,
        sealed_key: k.sealedKey,
        state: k.state,
        created_at: now,
        active_at: k.state === 'active' ? now : null,
        retiring_at: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toDnssecKey(row);
  }

  async setDnssecKeyState(id: number, state: DnssecKeyState, now: number): Promise<void> {
    const stamp = state === 'active' ? { active_at: now } : state === 'retiring' ? { retiring_at: now } : {};
    await this.db.updateTable('dnssec_keys').set({ state, ...stamp }).where('id', '=', id).execute();
  }

  async deleteDnssecKeys(domainId: number, ids?: number[]): Promise<void> {
    if (ids?.length === 0) return;
    let q = this.db.deleteFrom('dnssec_keys').where('domain_id', '=', domainId);
    if (ids) q = q.where('id', 'in', ids);
    await q.execute();
  }

  async anyDnssecKey(): Promise<StoredDnssecKey | undefined> {
    const row = await this.db.selectFrom('dnssec_keys').selectAll().orderBy('id').limit(1).executeTakeFirst();
    return row && toDnssecKey(row);
  }

  async dnssecPending(): Promise<number[]> {
    const rows = await this.db
      .selectFrom('dnssec_zones')
      .select('domain_id')
      .where('status', '=', 'unsigning')
      .union(this.db.selectFrom('dnssec_keys').select('domain_id').where('state', 'in', ['incoming', 'retiring']))
      .execute();
    return [...new Set(rows.map((r) => num(r.domain_id)))].sort((a, b) => a - b);
  }
}
