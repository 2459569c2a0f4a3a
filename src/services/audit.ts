/** The audit trail: every change an account made, read back from the change journal. */
import type { ChangeRow, Page, Store } from '../store/store.js';
import { scopeOf, type Actor } from './actor.js';

export class AuditService {
  constructor(private readonly store: Store) {}

  /**
   * The actor's account's changes, oldest first, optionally for one of its domains (a deleted domain's
   * history stays readable by its account; another account's domain ID simply yields nothing). An API key
   * limited to some domains reads only their history.
   */
  async list(actor: Actor, filter: { domainId?: number } & Page = {}): Promise<ChangeRow[]> {
    const ids = scopeOf(actor).domains;
    return this.store.listChanges({ ...filter, accountId: actor.accountId, ...(ids ? { domainIds: ids } : {}) });
  }
}
