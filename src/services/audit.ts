/** The audit trail: every change an account made (to its zones, its members and its keys), read back from the change journal. */
import type { NewJournalEntry, StoredJournalEntry } from '../model/journal.js';
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

/**
 * A journal entry for a change to the account itself (a member, an API key, a TSIG key): no domain (id 0) and
 * no serial, so zone transfers never read it; the audit trail lists it with the account's other changes.
 */
export function accountChange(actor: Actor, now: number, action: string, objectId: number, before: unknown, after: unknown): NewJournalEntry {
  return {
    domainId: 0,
    accountId: actor.accountId,
    serial: 0,
    at: now,
    action,
    objectId,
    keyLabel: actor.keyLabel,
    keyId: actor.key?.id ?? null,
    userId: actor.userId,
    username: actor.username,
    iface: actor.iface,
    remoteAddr: actor.remoteAddr,
    before,
    after,
  };
}
