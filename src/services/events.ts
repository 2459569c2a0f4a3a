/**
 * Change events, emitted once per committed write. The DNS server patches its in-memory zones from
 * them; on PostgreSQL they also arrive from other nodes (LISTEN/NOTIFY).
 */
import { EventEmitter } from 'node:events';

export interface ZoneChange {
  domainId: number;
  /** Zone name (lower case); for a rename, the new name. */
  domain: string;
  /** The zone's serial after the change; 0 when the domain was deleted. */
  serial: number;
  /**
   * 'mirror.notified': one of a zone mirror's masters sent NOTIFY to a node that is not the leader, which
   * passes it on so the leader checks the mirror at once; nothing stored changed.
   */
  kind: 'domain.created' | 'domain.updated' | 'domain.deleted' | 'records.changed' | 'mirror.transferred' | 'mirror.notified';
  /** The previous name when a domain was renamed or deleted. */
  previousDomain?: string;
}

export class ChangeBus {
  private readonly emitter = new EventEmitter();
  constructor() {
    this.emitter.setMaxListeners(0);
  }
  emit(change: ZoneChange): void {
    this.emitter.emit('change', change);
  }
  /** Subscribes; returns the function that unsubscribes. */
  on(listener: (change: ZoneChange) => void): () => void {
    this.emitter.on('change', listener);
    return () => this.emitter.off('change', listener);
  }
}
