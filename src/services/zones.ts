/**
 * The one way to read a zone as it is served, for the DNS side (which has no actor: DNS is public). A
 * master zone is built from its domain and records (model/zone.ts); a zone mirror serves its last good
 * copy until the SOA expire time after the last successful check. `nameservers` are the configured ones
 * (SOA MNAME and apex NS of every master zone), which only the DNS side knows.
 */
import { isServed, type StoredDomain } from '../model/domain.js';
import { soaData, type StoredRecord } from '../model/records/index.js';
import type { StoredTsigKey } from '../model/tsig-key.js';
import { keyOf } from '../model/labels.js';
import { NONE_DOWN, parseZone, soaOf, zoneContent, type ZoneContent, type ZoneRecord } from '../model/zone.js';
import { checksOf } from '../model/steering.js';
import type { HealthCheckStore } from '../store/health-checks.js';
import { recordChangesSince, recordsOf } from '../model/zone-diff.js';
import { absoluteName } from '../model/names.js';
import type { ZoneSigning } from '../model/dnssec.js';
import type { StoredJournalEntry } from '../model/journal.js';
import type { AccountStore } from '../store/accounts.js';
import type { DomainKey, DomainStore } from '../store/domains.js';
import type { JournalStore } from '../store/journal.js';
import type { MirrorStore } from '../store/mirrors.js';
import type { RecordStore } from '../store/records.js';
import type { Transactions } from '../store/store.js';

/** What serving zones reads of the store: a zone's domain, records and journal (in one transaction for a transfer), mirrors' copies, TSIG owners. */
type ServedStore = DomainStore &
  RecordStore &
  JournalStore &
  MirrorStore &
  DownChecks &
  Pick<AccountStore, 'accountByName'> &
  Transactions<DomainStore & RecordStore & JournalStore & DownChecks>;
/** The health checks down now, which steered records are served with (model/steering.ts). */
type DownChecks = Pick<HealthCheckStore, 'downHealthChecks'>;

/** The checks the records' steering names that are down now (read only when a record names one). */
async function downAmong(ops: DownChecks, records: readonly StoredRecord[]): Promise<ReadonlySet<number>> {
  const ids = checksOf(records);
  return ids.length === 0 ? NONE_DOWN : new Set(await ops.downHealthChecks(ids));
}
import { CATALOG_ID } from '../model/catalog.js';
import { DNS_PORT, type CatalogOptions, type CatalogService, type NotifyTarget } from './catalog.js';
import type { DnssecService } from './dnssec.js';

/** A zone's content as served, and the domain it is of. */
export interface ServedZone {
  domain: StoredDomain;
  content: ZoneContent;
  /** Epoch ms after which a mirror's copy is no longer served; null for master zones. */
  expiresAt: number | null;
  /** The keys a signed master zone is served with (a mirror's signatures come with its copy). */
  signing?: ZoneSigning | null;
}

/** One consistent version of a zone, for a transfer. */
export interface ZoneSnapshot extends ServedZone {
  /**
   * A master zone's stored records and its journal rows from the serial asked for on, and the health checks
   * down (its content was built with); null for a mirror (it keeps none).
   */
  journal: { records: StoredRecord[]; changes: StoredJournalEntry[]; down: ReadonlySet<number> } | null;
}

/**
 * What changed in a master zone since a version the reader holds: every name a change touched (lookup
 * keys, the apex always among them, as its SOA moves) and, in `content`, exactly the records now at those
 * names; the rest of the zone is as it was. `signing` is left out when only records changed since that
 * version (a DNSSEC change is journaled as one, which makes a delta impossible): it is the version's own.
 */
export interface ZoneDelta extends Omit<ServedZone, 'signing'> {
  names: Set<string>;
  signing?: ZoneSigning | null;
}

/**
 * Journal rows, and names touched, beyond which a whole read is the cheaper way to a new version (a name
 * emptied by a patch costs a scan of the zone's names: dns/zone/zone.ts patchZone).
 */
const DELTA_MAX_CHANGES = 64;

/** The master zones of one start-up batch (by id range); each zone's content is built when asked for. */
export interface ZoneBatch {
  /** The zone with this id as served, or null when it is not a served master zone of the batch. */
  zone(id: number): ServedZone | null;
}

export class ZoneService {
  constructor(
    private readonly store: ServedStore,
    private readonly now: () => number,
    private readonly dnssec: DnssecService,
    /** The catalog zone, served like a master zone with id CATALOG_ID, when configured. */
    private readonly catalog: CatalogService | null = null,
  ) {}

  /** Every zone to serve, in brief, by id (what the DNS server loads at start): the catalog first, when there is one. */
  async listServed(): Promise<DomainKey[]> {
    const served = (await this.store.domainKeys()).filter((d) => isServed(d.status));
    if (!this.catalog) return served;
    const { id, domain, kind, status, serial } = await this.catalog.domain();
    return [{ id, domain, kind, status, serial }, ...served];
  }

  /** Every zone mirror, in brief, by id (what the puller checks at start). */
  async listMirrors(): Promise<DomainKey[]> {
    return (await this.store.domainKeys()).filter((d) => d.kind === 'slave');
  }

  /** A domain by id; CATALOG_ID is the catalog zone (as catalog/catalogDomain() describes it). */
  byId(id: number): Promise<StoredDomain | undefined> {
    if (id === CATALOG_ID && this.catalog) return this.catalog.domain();
    return this.store.domainById(id);
  }

  /** The domain of a lower-case zone name (the catalog zone for its name). */
  byName(name: string): Promise<StoredDomain | undefined> {
    if (this.catalog?.options.name === name) return this.catalog.domain();
    return this.store.domainByName(name);
  }

  /**
   * The catalog's secondaries (configuration): their addresses and TSIG key name may transfer the catalog
   * and every served zone; null when no catalog is configured.
   */
  secondaries(): Pick<CatalogOptions, 'axfr' | 'tsig'> | null {
    return this.catalog?.options ?? null;
  }

  /** Whether `key` (a verified customer TSIG key) is the secondaries' key: its name, owned by the configured account. */
  async isSecondariesKey(key: StoredTsigKey | null): Promise<boolean> {
    const o = this.catalog?.options;
    if (!key || !o?.tsig || !o.tsigOwner || keyOf(key.name) !== o.tsig) return false;
    return (await this.store.accountByName(o.tsigOwner))?.id === key.accountId;
  }

  /**
   * Where NOTIFY of a zone goes: its own `axfr` list (port 53) and the catalog's secondaries (who serve every
   * member), except for a zone just created: those learn of it from the catalog, whose own NOTIFY goes out, and
   * would answer one for a zone they do not have yet NOTAUTH.
   */
  notifyTargets(domain: StoredDomain, created = false): NotifyTarget[] {
    const targets = new Map<string, NotifyTarget>();
    for (const t of [...domain.axfrIps.map((address) => ({ address, port: DNS_PORT })), ...(created ? [] : (this.catalog?.options.notify ?? []))]) targets.set(`${t.address}@${t.port}`, t);
    return [...targets.values()];
  }

  /**
   * The zone as it should be served now, or null when the domain is gone, not served, or a mirror with no
   * copy of it. A mirror's copy comes with its expiry, past which it must not be served (it may be past already).
   */
  async read(id: number, nameservers: readonly string[]): Promise<ServedZone | null> {
    if (id === CATALOG_ID) return this.catalogZone(nameservers);
    const domain = await this.store.domainById(id);
    if (!domain || !isServed(domain.status)) return null;
    if (domain.kind === 'master') {
      const [records, signing] = await Promise.all([this.store.listRecords(id), this.signing(id)]);
      return { domain, content: zoneContent(domain, records, nameservers, await downAmong(this.store, records)), expiresAt: null, signing };
    }
    return this.mirrorCopy(domain);
  }

  /**
   * The master zone `id` as a delta from its version at `serial`, read from the journal and the records at
   * the names it touched; null when only a whole read (`read`) will do: not a served master zone any more,
   * a change other than to records since (domain settings, DNSSEC), a journal that does not reach back
   * to `serial`, or many changes or names.
   */
  async changedSince(id: number, serial: number, nameservers: readonly string[]): Promise<ZoneDelta | null> {
    const domain = await this.store.domainById(id);
    if (!domain || !isServed(domain.status) || domain.kind !== 'master') return null;
    const apex = keyOf(domain.domain);
    const names = new Set([apex]);
    const recordsOnly = domain.serial !== serial;
    if (recordsOnly) {
      const rows = await this.store.listJournal({ domainId: id, afterSerial: serial - 1, limit: DELTA_MAX_CHANGES + 1 });
      const later = rows.length > DELTA_MAX_CHANGES ? null : recordChangesSince(domain, rows, serial);
      if (!later) return null;
      for (const c of later) for (const r of [...recordsOf(c.before), ...recordsOf(c.after)]) names.add(keyOf(absoluteName(r.name, domain.domain)));
      if (names.size > DELTA_MAX_CHANGES) return null;
    }
    const relative = [...names].map((k) => (k === apex ? '' : k.slice(0, k.length - apex.length - 1)));
    // Only record changes since `serial`: the zone's keys and their states are those of the reader's version.
    const [records, signing] = await Promise.all([this.store.recordsAtNames(id, relative), recordsOnly ? undefined : this.signing(id)]);
    const down = await downAmong(this.store, records);
    return { domain, content: zoneContent(domain, records, nameservers, down), expiresAt: null, names, ...(signing === undefined ? {} : { signing }) };
  }

  /**
   * The master zones with ids `firstId`..`lastId`, read in two store queries (domains, records), however
   * many there are: the DNS server's start-up load, a batch at a time.
   */
  async batch(firstId: number, lastId: number, nameservers: readonly string[]): Promise<ZoneBatch> {
    const [domains, records, signing, catalog] = await Promise.all([
      this.store.domainsInRange(firstId, lastId),
      this.store.recordsOfDomains(firstId, lastId),
      this.dnssec.signingOfRange(firstId, lastId),
      firstId <= CATALOG_ID && CATALOG_ID <= lastId ? this.catalogZone(nameservers) : null,
    ]);
    const down = await downAmong(this.store, records);
    const byId = new Map(domains.map((d) => [d.id, d]));
    const byDomain = new Map<number, StoredRecord[]>();
    for (const r of records) {
      const list = byDomain.get(r.domainId);
      if (list) list.push(r);
      else byDomain.set(r.domainId, [r]);
    }
    return {
      zone(id) {
        if (id === CATALOG_ID) return catalog;
        const domain = byId.get(id);
        if (!domain || !isServed(domain.status) || domain.kind !== 'master') return null;
        return { domain, content: zoneContent(domain, byDomain.get(id) ?? [], nameservers, down), expiresAt: null, signing: signing(id) };
      },
    };
  }

  /**
   * What a master zone signs with: its keys (private keys opened with this node's key-encryption key) and
   * what CDS/CDNSKEY say; null when it is not signed. Read afresh after each 'dnssec.changed' (or any) event.
   * Throws when the zone is signed but this node cannot open its keys (no KEK, or another one).
   */
  signing(domainId: number): Promise<ZoneSigning | null> {
    return this.dnssec.signing(domainId);
  }

  /** The zone's SOA as served now (a master's own; a mirror's from its copy while that has not expired), or null. */
  async soa(domain: StoredDomain, nameservers: readonly string[]): Promise<ZoneRecord | null> {
    if (domain.id === CATALOG_ID) return (await this.catalogZone(nameservers))?.content.soa ?? null;
    if (domain.kind === 'master') return soaOf(domain, nameservers);
    return this.live(await this.mirrorCopy(domain))?.content.soa ?? null;
  }

  /**
   * The zone as one consistent version, for a transfer. A master zone is read under its domain's lock, so
   * no write lands between the serial, the records and the journal (read from `sinceSerial` on, when given:
   * IXFR). A mirror sends its last good copy; null once that has expired, or when the domain is gone. The
   * catalog zone keeps no journal: its IXFR is answered with the whole zone.
   */
  async snapshot(domain: StoredDomain, nameservers: readonly string[], sinceSerial: number | null): Promise<ZoneSnapshot | null> {
    if (domain.id === CATALOG_ID) {
      const catalog = await this.catalogZone(nameservers);
      return catalog && { ...catalog, journal: null };
    }
    if (domain.kind === 'slave') {
      const copy = this.live(await this.mirrorCopy(domain));
      return copy ? { ...copy, journal: null } : null;
    }
    const snapshot = await this.store.transaction(async (tx) => {
      await tx.lockDomain(domain.id);
      const d = await tx.domainById(domain.id);
      if (!d) return null;
      const records = await tx.listRecords(d.id);
      const changes = sinceSerial === null ? [] : await tx.listJournal({ domainId: d.id, afterSerial: sinceSerial - 1 });
      const down = await downAmong(tx, records);
      return { domain: d, content: zoneContent(d, records, nameservers, down), expiresAt: null, journal: { records, changes, down } };
    });
    // Keys change only by writes that also raise the serial, so they are read after the records without a race that matters.
    return snapshot && { ...snapshot, signing: await this.signing(domain.id) };
  }

  /** The catalog zone as served now; null when none is configured. */
  private async catalogZone(nameservers: readonly string[]): Promise<ServedZone | null> {
    if (!this.catalog) return null;
    return { ...(await this.catalog.content(nameservers)), expiresAt: null, signing: null };
  }

  /** A mirror's last good copy and when it expires: the SOA expire time after the last successful check. */
  private async mirrorCopy(domain: StoredDomain): Promise<ServedZone | null> {
    const state = await this.store.mirrorState(domain.id);
    if (!state?.zone || state.lastSuccess === null) return null;
    const content = parseZone(state.zone);
    // A copy pulled for the zone's previous name is not this zone's.
    if (keyOf(content.soa.name) !== keyOf(domain.domain)) return null;
    return { domain, content, expiresAt: state.lastSuccess + soaData(content.soa).expire * 1000 };
  }

  private live(z: ServedZone | null): ServedZone | null {
    return z && (z.expiresAt === null || this.now() < z.expiresAt) ? z : null;
  }
}
