/** The change journal (table `changes`): what each write changed, for the audit log and incremental transfers (IXFR). */
import type { Kysely } from 'kysely';
import type { NewJournalEntry, StoredJournalEntry } from '../model/journal.js';
import { num, numOrNull } from './columns.js';
import { pageLimit, type Page } from './page.js';
import type { Database } from './schema.js';

export type JournalFilter = { accountId?: number; domainId?: number; domainIds?: readonly number[]; afterSerial?: number } & Page;

export interface JournalStore {
  appendJournal(entries: readonly NewJournalEntry[]): Promise<void>;
  listJournal(filter: JournalFilter): Promise<StoredJournalEntry[]>;
}

/** Rows per INSERT of appendJournal: 14 parameters each, far below SQLite's (32766) and PostgreSQL's (65535) limits. */
const ENTRIES_PER_INSERT = 500;

export class KyselyJournalStore implements JournalStore {
  constructor(private readonly db: Kysely<Database>) {}

  async appendJournal(entries: readonly NewJournalEntry[]): Promise<void> {
    // In slices, so that a write journaling many entries stays within the databases' parameter limits.
    for (let i = 0; i < entries.length; i += ENTRIES_PER_INSERT) {
      await this.db
        .insertInto('changes')
        .values(
          entries.slice(i, i + ENTRIES_PER_INSERT).map((c) => ({
            domain_id: c.domainId,
            account_id: c.accountId,
            serial: c.serial,
            at: c.at,
            action: c.action,
            object_id: c.objectId,
            key_label: c.keyLabel,
            key_id: c.keyId,
            user_id: c.userId,
            username: c.username,
            iface: c.iface,
            remote_addr: c.remoteAddr,
            before: JSON.stringify(c.before ?? null),
            after: JSON.stringify(c.after ?? null),
          })),
        )
        .execute();
    }
  }

  async listJournal(filter: JournalFilter): Promise<StoredJournalEntry[]> {
    let q = this.db.selectFrom('changes').selectAll();
    if (filter.accountId !== undefined) q = q.where('account_id', '=', filter.accountId);
    if (filter.domainId !== undefined) q = q.where('domain_id', '=', filter.domainId);
    if (filter.domainIds !== undefined) q = q.where('domain_id', 'in', filter.domainIds.length ? [...filter.domainIds] : [0]);
    if (filter.afterSerial !== undefined) q = q.where('serial', '>', filter.afterSerial);
    if (filter.after !== undefined) q = q.where('id', '>', filter.after);
    if (filter.limit !== undefined) q = q.limit(pageLimit(filter.limit));
    const rows = await q.orderBy('id').execute();
    return rows.map((r) => ({
      id: num(r.id),
      domainId: num(r.domain_id),
      accountId: numOrNull(r.account_id),
      serial: num(r.serial),
      at: num(r.at),
      action: r.action,
      objectId: numOrNull(r.object_id),
      keyLabel: r.key_label,
      keyId: numOrNull(r.key_id),
      userId: numOrNull(r.user_id),
      username: r.username,
      iface: r.iface,
      remoteAddr: r.remote_addr,
      before: JSON.parse(r.before) as unknown,
      after: JSON.parse(r.after) as unknown,
    }));
  }
}
