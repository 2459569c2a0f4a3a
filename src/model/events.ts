/**
 * What a committed write changed, as one event: the DNS server patches its in-memory zones from it, the
 * NOTIFY sender and the mirror puller act on it, and on PostgreSQL other nodes hear it (LISTEN/NOTIFY).
 * The store carries it between nodes; services/events.ts delivers it within one.
 */
export interface ZoneChange {
  domainId: number;
  /** Zone name (lower case); for a rename, the new name. */
  domain: string;
  /** The zone's serial after the change; 0 when the domain was deleted. */
  serial: number;
  /**
   * 'mirror.notified': one of a zone mirror's masters sent NOTIFY to a node that is not the leader, which
   * passes it on so the leader checks the mirror at once; nothing stored changed.
   * 'dnssec.changed': what the zone signs with changed (keys, CDS/CDNSKEY, signing on or off); the serial moved.
   */
  kind: 'domain.created' | 'domain.updated' | 'domain.deleted' | 'records.changed' | 'mirror.transferred' | 'mirror.notified' | 'dnssec.changed';
  /** The previous name when a domain was renamed or deleted. */
  previousDomain?: string;
}
