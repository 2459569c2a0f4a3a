/** The change feed on PostgreSQL: LISTEN for what other nodes announce (see ClusterStore.listen, EventStore.announce). */
import pg from 'pg';
import type { ZoneEvent } from '../../model/zone-event.js';
import { quoteIdent, type ParsedUrl } from './dialect.js';

/** Where the nodes of one database (and schema) announce their changes, and who this node is. */
export interface ChangeFeed {
  parsed: ParsedUrl;
  /** The NOTIFY channel. */
  channel: string;
  /** This process's tag on its own notifications, so it does not apply them twice. */
  origin: string;
  log: (message: string) => void;
}

/**
 * A dedicated connection LISTENs on the channel. When it breaks, it is re-opened (with a log line)
 * until it works again, and `resync` tells the caller to look for what it may have missed.
 */
export async function listenForEvents(
  feed: ChangeFeed,
  listener: (change: ZoneEvent) => void,
  resync: () => void,
): Promise<() => Promise<void>> {
  let client: pg.Client | null = null;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  const { parsed, channel, log } = feed;
  const connect = async (): Promise<void> => {
    const c = new pg.Client({ connectionString: parsed.connectionString });
    c.on('notification', (n) => {
      if (n.channel !== channel || !n.payload) return;
      const { origin, change } = JSON.parse(n.payload) as { origin: string; change: ZoneEvent };
      if (origin !== feed.origin) listener(change);
    });
    let lost = false;
    const onLost = (why: string) => {
      if (lost || stopped) return;
      lost = true;
      client = null;
      log(`PostgreSQL change feed lost (${why}); reconnecting`);
      void c.end().catch(() => {});
      reconnect(1);
    };
    // Until it listens, a failure surfaces as this function's rejection.
    c.on('error', () => {});
    try {
      await c.connect();
      await c.query(`listen ${quoteIdent(channel)}`);
    } catch (e) {
      await c.end().catch(() => {});
      throw e;
    }
    c.on('error', (e) => onLost(e.message));
    c.on('end', () => onLost('connection closed'));
    client = c;
  };
  const reconnect = (attempt: number) => {
    retry = setTimeout(() => {
      connect().then(
        () => {
          log('PostgreSQL change feed restored');
          resync();
        },
        (e: unknown) => {
          log(`PostgreSQL change feed: reconnect attempt ${attempt} failed (${(e as Error).message})`);
          if (!stopped) reconnect(attempt + 1);
        },
      );
    }, Math.min(500 * attempt, 5000));
  };
  await connect();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    await (client as pg.Client | null)?.end().catch(() => {});
  };
}
