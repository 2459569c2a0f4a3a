/**
 * The change bus: every committed write's ZoneEvent (model/zone-event.ts), and on PostgreSQL those other
 * nodes announce, delivered to this node's listeners.
 */
import { EventEmitter } from 'node:events';
import type { ZoneEvent } from '../model/zone-event.js';

export class ZoneEventBus {
  private readonly emitter = new EventEmitter();
  constructor() {
    this.emitter.setMaxListeners(0);
  }
  emit(change: ZoneEvent): void {
    this.emitter.emit('change', change);
  }
  /** Subscribes; returns the function that unsubscribes. */
  on(listener: (change: ZoneEvent) => void): () => void {
    this.emitter.on('change', listener);
    return () => this.emitter.off('change', listener);
  }
}
