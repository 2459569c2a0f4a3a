/**
 * The change bus: every committed write's ZoneChange (model/events.ts), and on PostgreSQL those other
 * nodes announce, delivered to this node's listeners.
 */
import { EventEmitter } from 'node:events';
import type { ZoneChange } from '../model/events.js';

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
