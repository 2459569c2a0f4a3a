/** Savepoints: independent changes sharing one transaction, each kept or undone on its own. */
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

export interface SavepointStore {
  /**
   * Inside a transaction: runs `fn` so that, should it throw, what it wrote is undone and the transaction
   * goes on (SQL SAVEPOINT): several independent changes — DNS UPDATE messages queued for one zone — share one
   * transaction and one commit, each kept or dropped on its own.
   */
  savepoint<T>(fn: () => Promise<T>): Promise<T>;
}

export class KyselySavepointStore implements SavepointStore {
  /** Savepoints opened so far in this transaction, to name each one anew. */
  private opened = 0;

  constructor(private readonly db: Kysely<Database>) {}

  async savepoint<T>(fn: () => Promise<T>): Promise<T> {
    const name = sql.id(`sp${++this.opened}`);
    await sql`savepoint ${name}`.execute(this.db);
    try {
      const value = await fn();
      await sql`release savepoint ${name}`.execute(this.db);
      return value;
    } catch (e) {
      await sql`rollback to savepoint ${name}`.execute(this.db);
      await sql`release savepoint ${name}`.execute(this.db);
      throw e;
    }
  }
}
