/**
 * The catalog zone (RFC 9432) of this service, when configured (--catalog): its members are read from the
 * stored domains and its serial from the store (raised with every membership change, services/zone-writer.ts and
 * mirrors.ts), so every node serves the same catalog. Every membership change heard on the bus (this node's
 * or, on PostgreSQL, another's) is followed at once by a 'catalog.changed' event, so the DNS side reloads the
 * catalog and notifies its consumers like any other zone.
 */
import { CATALOG_ID, catalogContent, catalogDomain, catalogMembers } from '../model/catalog.js';
import type { StoredDomain } from '../model/domain.js';
import { isMembershipChange } from '../model/zone-event.js';
import type { ZoneContent } from '../model/zone.js';
import type { CatalogStore } from '../store/catalog.js';
import type { ZoneEventBus } from './zone-events.js';

/** The standard DNS port, where NOTIFY goes unless a secondary is listed with another. */
export const DNS_PORT = 53;

/** Where a NOTIFY is sent. */
export interface NotifyTarget {
  address: string;
  port: number;
}

export interface CatalogOptions {
  /** The catalog zone's name (lower case, no trailing dot). */
  name: string;
  /**
   * The secondaries' addresses: they may transfer the catalog and every member zone, and are sent NOTIFY
   * for all of them (next to each domain's own `axfr` list).
   */
  axfr: readonly string[];
  /** The secondaries' addresses with the port they take NOTIFY on (53 unless listed as ADDRESS@PORT). */
  notify: readonly NotifyTarget[];
  /** The name of a TSIG key (from /v1/tsigkeys) that opens the catalog and every member zone to transfers; null for none. */
  tsig: string | null;
  /**
   * The user name of the account that owns that key. Key names are unique in the service but anyone may take a
   * free one, so the name alone must never open every zone: only that account's key of that name does.
   */
  tsigOwner: string | null;
}

export class CatalogService {
  constructor(
    private readonly store: CatalogStore,
    bus: ZoneEventBus,
    readonly options: CatalogOptions,
  ) {
    bus.on((c) => {
      if (isMembershipChange(c)) bus.emit({ domainId: CATALOG_ID, domain: options.name, serial: 0, kind: 'catalog.changed' });
    });
  }

  /** Whether `name` (lower case) is the catalog zone or a name inside it: no domain may take it. */
  covers(name: string): boolean {
    return name === this.options.name || name.endsWith(`.${this.options.name}`);
  }

  /** The catalog as a domain, with its current serial and the secondaries as its transfer list. */
  async domain(): Promise<StoredDomain> {
    return catalogDomain(this.options.name, await this.store.catalogSerial(), this.options.axfr);
  }

  /** The catalog zone as served now. */
  async content(nameservers: readonly string[]): Promise<{ domain: StoredDomain; content: ZoneContent }> {
    // The serial first: a change committed between the two reads then shows with the older serial, and its
    // own event reloads the catalog with the newer one; never the newer serial over the older members.
    const serial = await this.store.catalogSerial();
    const candidates = await this.store.catalogCandidates();
    const domain = catalogDomain(this.options.name, serial, this.options.axfr);
    return { domain, content: catalogContent(domain, catalogMembers(candidates), nameservers) };
  }
}
