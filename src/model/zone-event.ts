/**
 * What a committed write changed, as one event: the DNS server patches its in-memory zones from it, the
 * NOTIFY sender and the mirror puller act on it, and on PostgreSQL other nodes hear it (LISTEN/NOTIFY).
 * The store carries it between nodes; services/zone-events.ts delivers it within one.
 */
export interface ZoneEvent {
  domainId: number;
  /** Zone name (lower case); for a rename, the new name. */
  domain: string;
  /** The zone's serial after the change; 0 when the domain was deleted. */
  serial: number;
  /**
   * 'mirror.notified': one of a zone mirror's masters sent NOTIFY to a node that is not the leader, which
   * passes it on so the leader checks the mirror at once; nothing stored changed.
   * 'dnssec.changed': what the zone signs with changed (keys, CDS/CDNSKEY, signing on or off); the serial moved.
   * 'catalog.changed': the catalog zone (domainId CATALOG_ID, model/catalog.ts) has a new serial. Each node
   * derives it from the membership changes it hears; it is never announced between nodes.
   */
  kind: 'domain.created' | 'domain.updated' | 'domain.deleted' | 'records.changed' | 'mirror.transferred' | 'mirror.notified' | 'dnssec.changed' | 'catalog.changed';
  /** The previous name when a domain was renamed or deleted. */
  previousDomain?: string;
}

/** Changes that may change the catalog zone's members or their properties (the catalog serial is raised with them). */
export const isMembershipChange = (c: Pick<ZoneEvent, 'kind'>): boolean =>
  c.kind === 'domain.created' || c.kind === 'domain.updated' || c.kind === 'domain.deleted' || c.kind === 'mirror.transferred';
