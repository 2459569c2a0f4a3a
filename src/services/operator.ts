/**
 * The operator's controls over accounts (`zonehost account list | set | delete`): list them with what they
 * hold, suspend and resume them, set their own limits, delete them with everything they hold. Only the
 * command line reaches these; what a suspension refuses is decided where credentials are checked
 * (AccountService.authenticate and checkPassword, TsigKeyService.checkActive).
 */
import type { AccountControls, AccountSummary } from '../model/account.js';
import { ValidationError } from '../model/errors.js';
import type { AccountStore } from '../store/accounts.js';
import type { ApiKeyStore } from '../store/api-keys.js';
import type { Transactions } from '../store/store.js';
import type { JournalStore } from '../store/journal.js';
import type { TsigKeyStore } from '../store/tsig-keys.js';
import { ownerActor } from './actor.js';
import { accountChange } from './audit.js';
import type { ZoneWriter } from './zone-writer.js';

/** What deleting an account deletes besides the account: its domains, records and keys (and its audit trail). */
export interface AccountHoldings extends AccountSummary {
  apiKeys: number;
  tsigKeys: number;
}

/** What the operator's reads and changes need of the store, in a transaction or not. */
type AccountOps = AccountStore & Pick<ApiKeyStore, 'countActiveKeys'> & Pick<TsigKeyStore, 'countTsigKeys'> & Pick<JournalStore, 'appendJournal'>;

const noSuchAccount = (name: string) => ValidationError.one('name', `There is no account named '${name}'.`);

/** The highest limit the operator may set: a count the store's integer columns hold on both databases. */
const MAX_LIMIT = 2_147_483_647;

export class OperatorService {
  constructor(
    private readonly store: AccountOps & Transactions<AccountOps>,
    private readonly writer: ZoneWriter,
    private readonly now: () => number,
  ) {}

  list(): Promise<AccountSummary[]> {
    return this.store.listAccounts();
  }

  /** One account with what deleting it would delete; ValidationError when there is none of that name. */
  async holdings(name: string, ops: AccountOps = this.store): Promise<AccountHoldings> {
    const [summary] = await ops.listAccounts(name);
    if (!summary) throw noSuchAccount(name);
    return { ...summary, apiKeys: await ops.countActiveKeys(summary.id, this.now()), tsigKeys: await ops.countTsigKeys(summary.id) };
  }

  /**
   * Suspends or resumes the account, or sets its limits (null: back to the node's), and says so in the account's
   * audit trail (`account.suspend`, `account.resume`, `account.limits`, by the command line). A suspension holds
   * from the next request on, on every node: keys and TSIG keys are read with their account's status each time.
   */
  async set(name: string, controls: AccountControls): Promise<AccountSummary> {
    for (const [field, value] of [['max-domains', controls.maxDomains], ['max-records', controls.maxRecords]] as const) {
      if (value !== undefined && value !== null && (!Number.isSafeInteger(value) || value < 0 || value > MAX_LIMIT)) {
        throw ValidationError.one(field, `--${field} must be a whole number between 0 and ${MAX_LIMIT}, or 'default'.`);
      }
    }
    return this.store.transaction(async (tx) => {
      const account = await tx.accountByName(name);
      if (!account) throw noSuchAccount(name);
      await tx.lockAccount(account.id);
      const [before] = (await tx.listAccounts(name)) as [AccountSummary];
      await tx.setAccountControls(account.id, controls);
      const [after] = (await tx.listAccounts(name)) as [AccountSummary];
      const action = before.status === after.status ? 'account.limits' : after.status === 'suspended' ? 'account.suspend' : 'account.resume';
      if (action !== 'account.limits' || before.maxDomains !== after.maxDomains || before.maxRecords !== after.maxRecords) {
        await tx.appendJournal([accountChange(ownerActor(account.id, '', 'cli'), this.now(), action, account.id, audited(before), audited(after))]);
      }
      return after;
    });
  }

  /**
   * Deletes the account and everything it holds in one transaction: its domains (no longer served, on every
   * node: each is announced deleted as a domain deleted through the API is), records, mirrors, DNSSEC keys,
   * API keys, TSIG keys, and its audit trail (docs/deployment.md says why). Answers what was deleted.
   */
  async delete(name: string): Promise<AccountHoldings> {
    const { value } = await this.writer.writeZones(null, async (tx) => {
      const account = await tx.accountByName(name);
      if (!account) throw noSuchAccount(name);
      // Held until commit: no domain or key of this account is made meanwhile.
      await tx.lockAccount(account.id);
      const held = await this.holdings(name, tx);
      const domains = await tx.listDomains(account.id);
      // Writers already in one of its zones finish first.
      for (const d of domains) await tx.lockDomain(d.id);
      await tx.deleteAccount(account.id);
      return {
        value: held,
        zones: domains.map((d) => ({ change: { domainId: d.id, domain: d.domain, kind: 'domain.deleted' as const, previousDomain: d.domain }, journal: [] })),
      };
    });
    return value;
  }
}

/** What the audit trail keeps of an account's controls. */
const audited = (a: AccountSummary) => ({ status: a.status, max_domains: a.maxDomains, max_records: a.maxRecords });
