/** The catalog zone (RFC 9432): its serial, and what its member list is built from. */
import type { Kysely } from 'kysely';
import type { CatalogCandidate } from '../model/catalog.js';
import type { DomainKind, DomainStatus } from '../model/domain.js';
import { num, raisedSerial } from './columns.js';
import type { Database } from './schema.js';

export interface CatalogStore {
  /** The catalog zone's serial. */
  catalogSerial(): Promise<number>;
  /** Raises the catalog zone's serial to max(serial + 1, floor) and returns it (inside the membership change's transaction). */
  bumpCatalogSerial(floor: number): Promise<number>;
  /** Every domain in brief with whether a mirror holds a copy, by id (what the catalog zone is built from). */
  catalogCandidates(): Promise<CatalogCandidate[]>;
}

export class KyselyCatalogStore implements CatalogStore {
  constructor(private readonly db: Kysely<Database>) {}

  async catalogSerial(): Promise<number> {
    const row = await this.db.selectFrom('catalog').select('serial').where('id', '=', 1).executeTakeFirstOrThrow();
    return num(row.serial);
  }

  async bumpCatalogSerial(floor: number): Promise<number> {
    const row = await this.db
      .updateTable('catalog')
      .set({ serial: raisedSerial(floor) })
      .where('id', '=', 1)
      .returning('serial')
      .executeTakeFirstOrThrow();
    return num(row.serial);
  }

  async catalogCandidates(): Promise<CatalogCandidate[]> {
    const rows = await this.db
      .selectFrom('domains')
      .leftJoin('mirror_state', 'mirror_state.domain_id', 'domains.id')
      .select(['domains.id', 'domains.domain', 'domains.kind', 'domains.status', 'domains.display_group', 'mirror_state.last_success'])
      .orderBy('domains.id')
      .execute();
    return rows.map((r) => ({
      id: num(r.id),
      domain: r.domain,
      kind: r.kind as DomainKind,
      status: num(r.status) as DomainStatus,
      displayGroup: r.display_group,
      // A mirror's copy and its last success are saved and cleared together (services/mirrors.ts, domains.ts).
      hasCopy: r.last_success !== null,
    }));
  }
}
