/** The cluster's leader lock on PostgreSQL (see ClusterStore.leaderLock). */
import pg from 'pg';
import type { LeaderLock } from '../store.js';
import type { ParsedUrl } from './dialect.js';

/**
 * A session advisory lock on a dedicated connection: PostgreSQL frees it the moment that session ends,
 * so a node that dies (or loses its connection) stops being the leader and another can take over.
 * While held, each call checks the connection still answers, with a timeout, instead of re-locking.
 */
export function advisoryLeaderLock(parsed: ParsedUrl, onLost: (why: string) => void): LeaderLock {
  // One leader per schema, like the change channel.
  const key = `zonehost_leader${parsed.schema ? `:${parsed.schema}` : ''}`;
  let client: pg.Client | null = null;
  let held = false;
  const drop = (c: pg.Client, why: string) => {
    if (client !== c) return;
    client = null;
    void c.end().catch(() => {});
    if (held) {
      held = false;
      onLost(why);
    }
  };
  return {
    tryHold: async () => {
      if (!client) {
        const c = new pg.Client({ connectionString: parsed.connectionString, connectionTimeoutMillis: 5000, query_timeout: 5000, keepAlive: true });
        c.on('error', (e) => drop(c, e.message));
        c.on('end', () => drop(c, 'connection closed'));
        try {
          await c.connect();
        } catch (e) {
          await c.end().catch(() => {});
          throw e;
        }
        client = c;
      }
      const c = client;
      try {
        if (held) await c.query('select 1');
        else held = (await c.query<{ held: boolean }>('select pg_try_advisory_lock(hashtextextended($1, 0)) as held', [key])).rows[0]?.held === true;
      } catch (e) {
        drop(c, (e as Error).message);
        throw e;
      }
      return held;
    },
    release: async () => {
      const c = client;
      client = null;
      held = false;
      // Ending the session releases its advisory locks.
      await c?.end().catch(() => {});
    },
  };
}
