/**
 * The one storage interface the services use. Implementations: sqlite/ (embedded default) and
 * postgres/ (production, several nodes); both are Kysely-based and share the queries in kysely-store.ts.
 */
import type { CatalogCandidate } from '../model/catalog.js';
import type { DomainData, StoredDomain } from '../model/domain.js';
import type { RecordData, StoredRecord } from '../model/records/index.js';
import type { ZoneEvent } from '../model/zone-event.js';
import type { KeyScope } from '../model/key-scope.js';
import type { StoredTsigKey, TsigKeyData } from '../model/tsig-key.js';
import type { DnssecKeyData, DnssecKeyState, DnssecZoneState, StoredDnssecKey } from '../model/dnssec.js';

export interface Account {
  id: number;
  username: string;
  passwordHash: string;
  createdAt: number;
}

export interface ApiKeyRow {
  id: number;
  accountId: number;
  prefix: string;
  label: string;
  createdAt: number;
  expiresAt: number | null;
  scope: KeyScope;
}

export interface ChangeRow {
  id: number;
  domainId: number;
  accountId: number | null;
  serial: number;
  at: number;
  action: string;
  objectId: number | null;
  keyLabel: string;
  /** The API key that made the change; null when none did (DNS UPDATE names its TSIG key in keyLabel). */
  keyId: number | null;
  iface: string;
  remoteAddr: string;
  before: unknown;
  after: unknown;
}

/** Transfer state of a zone mirror; `zone` is the last good copy (JSON text), null before the first transfer. */
export interface MirrorState {
  domainId: number;
  serial: number | null;
  lastSuccess: number | null;
  lastAttempt: number | null;
  lastError: string | null;
  zone: string | null;
}

export type NewChange = Omit<ChangeRow, 'id'>;

/** Cursor pagination: rows with id greater than `after`, at most `limit`. */
export interface Page {
  after?: number;
  limit?: number;
}

const DEFAULT_PAGE = 100;

/** The number of rows a page holds: `limit` kept within 1..10000, DEFAULT_PAGE when not given. */
export const pageLimit = (limit?: number) => Math.max(1, Math.min(limit ?? DEFAULT_PAGE, 10_000));

export interface DomainFilter extends Page {
  kind?: DomainData['kind'];
  /** Exact (lower-case) domain name. */
  name?: string;
  /** Only these ids (an API key's scope). */
  ids?: readonly number[];
}

/** What start-up listings need of a domain: no more, since they read every domain there is. */
export type DomainKey = Pick<StoredDomain, 'id' | 'domain' | 'kind' | 'status' | 'serial'>;

/** Operations available inside and outside a transaction. */
export interface StoreOps {
  createAccount(username: string, passwordHash: string, now: number): Promise<Account>;
  accountByName(username: string): Promise<Account | undefined>;

  insertKey(accountId: number, keyHash: string, prefix: string, label: string, now: number, expiresAt: number | null, scope?: KeyScope): Promise<ApiKeyRow>;
  /** The key and its account when the hash matches a key that has not expired at `now`. */
  keyByHash(keyHash: string, now: number): Promise<(ApiKeyRow & { username: string }) | undefined>;
  listKeys(accountId: number, now: number): Promise<ApiKeyRow[]>;
  countActiveKeys(accountId: number, now: number): Promise<number>;
  deleteKey(accountId: number, keyId: number): Promise<boolean>;

  /** Raises UniqueViolation when the name is taken (by any account). */
  insertTsigKey(accountId: number, k: TsigKeyData, secret: string, now: number): Promise<StoredTsigKey>;
  /** A key of this account (undefined for another account's: the two look the same). */
  tsigKey(accountId: number, id: number): Promise<StoredTsigKey | undefined>;
  /** The key with this (normalised) name, of whichever account. */
  tsigKeyByName(name: string): Promise<StoredTsigKey | undefined>;
  listTsigKeys(accountId: number, page?: Page): Promise<StoredTsigKey[]>;
  countTsigKeys(accountId: number): Promise<number>;
  /** Everything but the secret and the owner; raises UniqueViolation when the new name is taken. */
  updateTsigKey(id: number, k: TsigKeyData): Promise<void>;
  deleteTsigKey(accountId: number, id: number): Promise<boolean>;

  insertDomain(accountId: number, d: DomainData, serial: number, now: number): Promise<StoredDomain>;
  /** A domain of this account (undefined for another account's: the two look the same). */
  domain(accountId: number, id: number): Promise<StoredDomain | undefined>;
  domainByName(name: string): Promise<StoredDomain | undefined>;
  domainById(id: number): Promise<StoredDomain | undefined>;
  listDomains(accountId: number, filter?: DomainFilter): Promise<StoredDomain[]>;
  /** Every domain of every account, by id, in brief (start-up listings and the cluster's reconciliation). */
  domainKeys(): Promise<DomainKey[]>;
  /** The domains with ids `firstId`..`lastId`, by id (the DNS server's start-up load, a batch at a time). */
  domainsInRange(firstId: number, lastId: number): Promise<StoredDomain[]>;
  countDomains(accountId: number): Promise<number>;
  updateDomain(id: number, d: DomainData, now: number): Promise<void>;
  deleteDomain(id: number): Promise<void>;
  /**
   * Inside a transaction: holds the domain's (account's) row until commit, so concurrent writers on one
   * zone (one account's domain list) run one after the other across processes. PostgreSQL takes a row
   * lock; on SQLite this does nothing, because BEGIN IMMEDIATE already serialises every writer.
   */
  lockDomain(id: number): Promise<void>;
  /** The domain of that name, read and locked as lockDomain does in one step (one round trip). */
  lockedDomainByName(name: string): Promise<StoredDomain | undefined>;
  /**
   * Inside a transaction: runs `fn` so that, should it throw, what it wrote is undone and the transaction
   * goes on (SQL SAVEPOINT): several independent changes — DNS UPDATE messages queued for one zone — share one
   * transaction and one commit, each kept or dropped on its own.
   */
  savepoint<T>(fn: () => Promise<T>): Promise<T>;
  lockAccount(id: number): Promise<void>;
  /**
   * Inside a transaction: queues writers that add or rename domains, across nodes, so two of them never
   * both miss the other's name (nesting rules compare a name with others, not with one row).
   */
  lockDomainNames(): Promise<void>;
  /** Domains whose name is an ancestor of `name` or lies below it (not `name` itself). */
  domainsNestedWith(name: string): Promise<{ id: number; accountId: number; domain: string }[]>;
  /** Raises the serial to max(serial + 1, floor) and returns it. */
  bumpSerial(domainId: number, floor: number): Promise<number>;
  /** The catalog zone's serial. */
  catalogSerial(): Promise<number>;
  /** Raises the catalog zone's serial to max(serial + 1, floor) and returns it (inside the membership change's transaction). */
  bumpCatalogSerial(floor: number): Promise<number>;
  /** Every domain in brief with whether a mirror holds a copy, by id (what the catalog zone is built from). */
  catalogCandidates(): Promise<CatalogCandidate[]>;

  insertRecord(domainId: number, r: RecordData, now: number): Promise<StoredRecord>;
  /** Inserts many records, a few hundred a statement; returns them stored, in the order given. */
  insertRecords(domainId: number, rs: readonly RecordData[], now: number): Promise<StoredRecord[]>;
  record(domainId: number, id: number): Promise<StoredRecord | undefined>;
  recordById(id: number): Promise<StoredRecord | undefined>;
  /** Every record of the domain, ordered by id. */
  listRecords(domainId: number): Promise<StoredRecord[]>;
  /** Every record of the domains with ids `firstId`..`lastId`, ordered by domain and id (the DNS server's start-up load). */
  recordsOfDomains(firstId: number, lastId: number): Promise<StoredRecord[]>;
  /** Records of the domain whose owner equals `name` case-insensitively. */
  recordsAt(domainId: number, name: string): Promise<StoredRecord[]>;
  /** Records of the domain whose owner is one of `names` (relative, lower case), case-insensitively. */
  recordsAtNames(domainId: number, names: readonly string[]): Promise<StoredRecord[]>;
  countRecords(domainId: number): Promise<number>;
  /** Records in the whole store (for metrics and consistency checks). */
  countAllRecords(): Promise<number>;
  updateRecord(id: number, r: RecordData, now: number): Promise<void>;
  deleteRecord(id: number): Promise<void>;

  mirrorState(domainId: number): Promise<MirrorState | undefined>;
  /** Inserts or replaces the state row of a mirror. */
  saveMirrorState(s: MirrorState): Promise<void>;

  /** A zone's DNSSEC state; undefined when it was never signed. */
  dnssecZone(domainId: number): Promise<DnssecZoneState | undefined>;
  /** Inserts or replaces a zone's DNSSEC state. */
  saveDnssecZone(z: DnssecZoneState): Promise<void>;
  /** The zone's DNSSEC keys, oldest first. */
  dnssecKeys(domainId: number): Promise<StoredDnssecKey[]>;
  /** The DNSSEC states and keys of the domains with ids `firstId`..`lastId`, read as of one moment (start-up load, API reads). */
  dnssecOfDomains(firstId: number, lastId: number): Promise<{ zones: DnssecZoneState[]; keys: StoredDnssecKey[] }>;
  insertDnssecKey(domainId: number, k: DnssecKeyData, now: number): Promise<StoredDnssecKey>;
  /** Moves a key to `state`, stamping the state's time (active_at, retiring_at) with `now`. */
  setDnssecKeyState(id: number, state: DnssecKeyState, now: number): Promise<void>;
  /** Deletes keys of the domain: these ids, or every one. */
  deleteDnssecKeys(domainId: number, ids?: number[]): Promise<void>;
  /** Any one DNSSEC key of any zone (to check at start that the key-encryption key opens the stored keys). */
  anyDnssecKey(): Promise<StoredDnssecKey | undefined>;
  /** Domains with a DNSSEC step to come: a zone being turned off, or keys in a rollover. */
  dnssecPending(): Promise<number[]>;

  appendChanges(cs: readonly NewChange[]): Promise<void>;
  /**
   * Tells the other nodes about a change. On PostgreSQL a NOTIFY, delivered only if and when the
   * transaction commits; on SQLite (one process) nothing to do.
   */
  announce(change: ZoneEvent): Promise<void>;
  listChanges(filter: { accountId?: number; domainId?: number; domainIds?: readonly number[]; afterSerial?: number } & Page): Promise<ChangeRow[]>;
}

export interface Store extends StoreOps {
  readonly dialect: 'sqlite' | 'postgres';
  /** Runs `fn` in one transaction that holds the write lock from its start. */
  transaction<T>(fn: (tx: StoreOps) => Promise<T>): Promise<T>;
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
  /** Applies pending migrations. */
  migrate(): Promise<void>;
  close(): Promise<void>;
}

export interface LeaderLock {
  /** Takes the lock when it is free, or confirms this node still holds it; false while another node holds it. */
  tryHold(): Promise<boolean>;
  /** Gives the lock up (if held) so another node can take it. */
  release(): Promise<void>;
}

/** Thrown by a store when a unique constraint rejects a write (e.g. a domain name taken concurrently). */
export class UniqueViolation extends Error {
  constructor(readonly constraint: string) {
    super(`unique constraint ${constraint}`);
  }
}
