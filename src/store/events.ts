/** Zone events told to the other nodes of a cluster (PostgreSQL NOTIFY; SQLite has no other nodes). */
import type { Kysely } from 'kysely';
import type { ZoneEvent } from '../model/zone-event.js';
import type { DialectSql } from './dialect-sql.js';
import type { Database } from './schema.js';

export interface EventStore {
  /**
   * Tells the other nodes about a change. On PostgreSQL a NOTIFY, delivered only if and when the
   * transaction commits; on SQLite (one process) nothing to do.
   */
  announce(change: ZoneEvent): Promise<void>;
}

export class KyselyEventStore implements EventStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: DialectSql,
  ) {}

  announce(change: ZoneEvent): Promise<void> {
    return this.dialect.announce(this.db, change);
  }
}
