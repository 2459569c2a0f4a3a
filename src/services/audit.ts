/** The audit trail: every change an account made, read back from the change journal. */
import type { StoredJournalEntry } from '../model/journal.js';
import type { JournalStore } from '../store/journal.js';
import type { Page } from '../store/page.js';
import { scopeOf, type Actor } from './actor.js';

export class AuditService {
  constructor(private readonly store: JournalStore) {}

  /**
   * The actor's account's changes, oldest first, optionally for one of its domains (a deleted domain's
   * history stays readable by its account; another account's domain ID simply yields nothing). An API key
   * limited to some domains reads only their history.
   */
  async list(actor: Actor, filter: { domainId?: number } & Page = {}): Promise<StoredJournalEntry[]> {
    const ids = scopeOf(actor).domains;
    return this.store.listJournal({ ...filter, accountId: actor.accountId, ...(ids ? { domainIds: ids } : {}) });
  }
}
