/**
 * The store: one narrow interface per aggregate (accounts.ts, users.ts, api-keys.ts, tsig-keys.ts, domains.ts, records.ts,
 * mirrors.ts, dnssec.ts, journal.ts, catalog.ts, events.ts, savepoints.ts, cookie-secrets.ts), each with its Kysely implementation
 * beside it, composed here. A service asks for the interfaces it uses. What differs between SQLite and PostgreSQL
 * is in sqlite/ and postgres/ (each: dialect.ts, sql.ts, open.ts); open.ts chooses between them.
 */
import type { ZoneEvent } from '../model/zone-event.js';
import type { AccountStore } from './accounts.js';
import type { ApiKeyStore } from './api-keys.js';
import type { CatalogStore } from './catalog.js';
import type { CookieSecretStore } from './cookie-secrets.js';
import type { DnssecStore } from './dnssec.js';
import type { DomainStore } from './domains.js';
import type { EventStore } from './events.js';
import type { HealthCheckStore } from './health-checks.js';
import type { JournalStore } from './journal.js';
import type { MirrorStore } from './mirrors.js';
import type { RecordStore } from './records.js';
import type { SavepointStore } from './savepoints.js';
import type { SecondFactorStore } from './second-factors.js';
import type { TsigKeyStore } from './tsig-keys.js';
import type { UserStore } from './users.js';

/** Every aggregate's operations, available inside and outside a transaction. */
export type StoreOps = AccountStore &
  UserStore &
  ApiKeyStore &
  TsigKeyStore &
  DomainStore &
  RecordStore &
  MirrorStore &
  DnssecStore &
  JournalStore &
  CatalogStore &
  EventStore &
  SavepointStore &
  CookieSecretStore &
  SecondFactorStore &
    HealthCheckStore;

/** Runs work in one transaction; a service names the aggregates its transactions use as `Ops`. */
export interface Transactions<Ops = StoreOps> {
  /** Runs `fn` in one transaction that holds the write lock from its start. */
  transaction<T>(fn: (tx: Ops) => Promise<T>): Promise<T>;
}

/** What only a cluster of nodes sharing one database has (PostgreSQL); on SQLite, one node, null. */
export interface ClusterStore {
  /**
   * Calls `listener` with changes other nodes announced (LISTEN on PostgreSQL); `resync` after the feed
   * was interrupted and has reconnected, since notifications may have been missed meanwhile. Resolves
   * once listening, with the function that stops. On SQLite there are no other nodes: null.
   */
  listen(listener: (change: ZoneEvent) => void, resync: () => void): Promise<(() => Promise<void>) | null>;
  /**
   * The lock that makes one node of a cluster its leader (services/leader.ts); `onLost` is called when a
   * held lock is lost with its connection. Null where one node is the whole cluster (SQLite).
   */
  leaderLock(onLost: (why: string) => void): LeaderLock | null;
  /**
   * Whether another connection may have committed since this was last asked (the first call: true). SQLite
   * knows (its data_version), so a node alone on its file compares its zones with the store only after a
   * command such as `zonehost account delete` wrote to it; PostgreSQL: always true.
   */
  othersWrote(): Promise<boolean>;
}

export interface LeaderLock {
  /** Takes the lock when it is free, or confirms this node still holds it; false while another node holds it. */
  tryHold(): Promise<boolean>;
  /** Gives the lock up (if held) so another node can take it. */
  release(): Promise<void>;
}

export interface Store extends StoreOps, Transactions, ClusterStore {
  readonly dialect: 'sqlite' | 'postgres';
  /** Applies pending migrations. */
  migrate(): Promise<void>;
  close(): Promise<void>;
}

/** Thrown by a store when a unique constraint rejects a write (e.g. a domain name taken concurrently). */
export class UniqueViolation extends Error {
  constructor(readonly constraint: string) {
    super(`unique constraint ${constraint}`);
  }
}
