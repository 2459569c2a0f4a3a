/**
 * TSIG keys: an account's credentials for DNS UPDATE and signed transfers, each limited to some of the
 * account's domains (and, for updates, to some names and types). Account-level like API keys, so their
 * changes are not in a domain's journal.
 */
import { randomBytes } from 'node:crypto';
import { ConflictError, LimitError, NotFoundError, SecondFactorSetupError, SuspendedError, type Problems } from '../model/errors.js';
import { checkTsigKey, DEFAULT_TSIG_ALGORITHM, normalizeKeyName, SECRET_BYTES, type NamedTsigKey, type StoredTsigKey, type TsigKeyData } from '../model/tsig-key.js';
import { checkManage, seesDomain } from '../model/key-scope.js';
import { checkMemberChange, managesAccount } from '../model/roles.js';
import type { AccountStore } from '../store/accounts.js';
import type { DomainStore } from '../store/domains.js';
import type { JournalStore } from '../store/journal.js';
import { pageLimit, type Page } from '../store/page.js';
import { UniqueViolation, type Transactions } from '../store/store.js';
import type { TsigKeyStore } from '../store/tsig-keys.js';
import type { UserStore } from '../store/users.js';
import { scopeOf, type Actor, type Limits } from './actor.js';
import { accountChange } from './audit.js';
import type { DomainService } from './domains.js';
import type { Precondition, PreconditionReads } from './zone-writer.js';

/** What TSIG keys need of the store; their writes hold the account's lock and run the caller's precondition. */
type TsigKeysStore = TsigKeyStore &
  Pick<DomainStore, 'domain'> &
  Transactions<TsigKeyStore & Pick<DomainStore, 'domain'> & Pick<AccountStore, 'lockAccount'> & Pick<UserStore, 'user'> & JournalStore & PreconditionReads>;

/** A new key: only the name is required; `secret` (base64) is generated when absent. */
export type TsigKeyInput = Partial<TsigKeyData> & Pick<TsigKeyData, 'name'> & { secret?: string };

/** A key as the audit trail shows it: everything but its secret. */
const audited = ({ secret: _s, ...rest }: StoredTsigKey) => rest;

const taken = (name: string) => new ConflictError('name', `The key name '${name}.' is taken; key names are unique in the whole service.`);

export class TsigKeyService {
  constructor(
    private readonly store: TsigKeysStore,
    private readonly domains: DomainService,
    private readonly limits: Limits,
    private readonly now: () => number,
  ) {}

  async create(actor: Actor, input: TsigKeyInput): Promise<{ key: StoredTsigKey }> {
    checkManage(scopeOf(actor), 'TSIG keys');
    const data = {
      name: input.name,
      algorithm: input.algorithm ?? DEFAULT_TSIG_ALGORITHM,
      domains: [...new Set(input.domains ?? [])],
      update: input.update ?? false,
      transfer: input.transfer ?? false,
      secret: input.secret ?? randomBytes(SECRET_BYTES).toString('base64'),
    };
    const p = checkTsigKey(data);
    await this.checkDomains(this.store, actor, data.domains, p);
    p.throwIfAny();
    const { secret, ...fields } = data;
    try {
      const key = await this.store.transaction(async (tx) => {
        await tx.lockAccount(actor.accountId);
        if ((await tx.countTsigKeys(actor.accountId)) >= this.limits.tsigKeysPerAccount) {
          throw new LimitError('tsigkeys', `An account may hold at most ${this.limits.tsigKeysPerAccount} TSIG keys; delete one first.`);
        }
        if (await tx.tsigKeyByName(fields.name)) throw taken(fields.name);
        const made = await tx.insertTsigKey(actor.accountId, fields, secret, this.now(), actor.userId);
        await tx.appendJournal([accountChange(actor, made.createdAt, 'tsigkey.create', made.id, null, audited(made))]);
        return made;
      });
      return { key };
    } catch (e) {
      // Two requests racing for one name: the loser gets the same answer as a plain duplicate.
      if (e instanceof UniqueViolation) throw taken(fields.name);
      throw e;
    }
  }

  /**
   * The actor's keys: every member's for owners and admins, their own for editors and viewers; an API key
   * limited to some domains sees only the TSIG keys for those domains alone.
   */
  async list(actor: Actor, page?: Page): Promise<StoredTsigKey[]> {
    if (!scopeOf(actor).domains && managesAccount(actor.role)) return this.store.listTsigKeys(actor.accountId, page);
    // At most tsigKeysPerAccount keys: filtered and paged in memory.
    const all = (await this.store.listTsigKeys(actor.accountId, { limit: this.limits.tsigKeysPerAccount + 1 })).filter((k) => this.sees(actor, k));
    return all.filter((k) => k.id > (page?.after ?? 0)).slice(0, pageLimit(page?.limit));
  }

  /** One of the actor's keys; NotFoundError for any other (another account's looks the same as none). */
  get(actor: Actor, id: number): Promise<StoredTsigKey> {
    return this.owned(this.store, actor, id);
  }

  /**
   * Changes a key's name, algorithm, domains or scope. The secret never changes: a new secret is a new key,
   * so a leaked one is revoked by deleting its key.
   */
  async update(actor: Actor, id: number, patch: Partial<TsigKeyData>, precondition?: Precondition<StoredTsigKey>): Promise<StoredTsigKey> {
    let name = patch.name ?? '';
    try {
      return await this.store.transaction(async (tx) => {
        // One account's key writes in turn (PostgreSQL), so If-Match and the change are one step.
        await tx.lockAccount(actor.accountId);
        const current = await this.owned(tx, actor, id);
        checkManage(scopeOf(actor), 'TSIG keys');
        await this.checkOthers(tx, actor, current);
        await precondition?.(current, tx);
        const { id: _id, accountId: _a, secret: _s, createdAt: _c, userId: _u, ...before } = current;
        const data: TsigKeyData = { ...before, ...patch };
        if (patch.domains) data.domains = [...new Set(patch.domains)];
        const p = checkTsigKey(data);
        // Only ids given now are checked: a deleted domain's id left in the list matches nothing (ids are never reused).
        if (patch.domains) await this.checkDomains(tx, actor, data.domains, p);
        p.throwIfAny();
        name = data.name;
        if (data.name !== current.name && (await tx.tsigKeyByName(data.name))) throw taken(data.name);
        await tx.updateTsigKey(id, data);
        const after = { ...current, ...data };
        await tx.appendJournal([accountChange(actor, this.now(), 'tsigkey.update', id, audited(current), audited(after))]);
        return after;
      });
    } catch (e) {
      if (e instanceof UniqueViolation) throw taken(name);
      throw e;
    }
  }

  /** Revokes a key: the next message signed with it is refused (the DNS side reads keys on every message). */
  async delete(actor: Actor, id: number, precondition?: Precondition<StoredTsigKey>): Promise<void> {
    await this.store.transaction(async (tx) => {
      await tx.lockAccount(actor.accountId);
      const current = await this.owned(tx, actor, id);
      checkManage(scopeOf(actor), 'TSIG keys');
      await this.checkOthers(tx, actor, current);
      await precondition?.(current, tx);
      await tx.deleteTsigKey(actor.accountId, id);
      await tx.appendJournal([accountChange(actor, this.now(), 'tsigkey.delete', id, audited(current), null)]);
    });
  }

  /**
   * The key a DNS message names, of whichever account. Read from the store every time, never cached: a
   * deleted or narrowed key must stop working at the next message, on every node.
   */
  byName(name: string): Promise<NamedTsigKey | undefined> {
    return this.store.tsigKeyByName(normalizeKeyName(name));
  }

  /**
   * Whether a key found by `byName`, whose signature checked out, may act: SuspendedError when its account is
   * suspended, SecondFactorSetupError when the account requires a second factor its member has not set up (as
   * their API keys are held). Only after the signature, so a message that cannot sign learns nothing of the account.
   */
  checkActive(key: NamedTsigKey): void {
    if (key.accountStatus === 'suspended') throw new SuspendedError(key.account);
    if (key.memberHeld) throw new SecondFactorSetupError();
  }

  /** Another member's key: an owner or admin may change it, an owner's only an owner (model/roles.ts). */
  private async checkOthers(ops: Pick<UserStore, 'user'>, actor: Actor, k: StoredTsigKey): Promise<void> {
    if (k.userId !== actor.userId) checkMemberChange(actor.role, (await ops.user(actor.accountId, k.userId))?.role ?? null);
  }

  private async owned(ops: Pick<TsigKeyStore, 'tsigKey'>, actor: Actor, id: number): Promise<StoredTsigKey> {
    const k = Number.isSafeInteger(id) && id > 0 ? await ops.tsigKey(actor.accountId, id) : undefined;
    if (!k || !this.sees(actor, k)) throw new NotFoundError('tsigkey');
    return k;
  }

  /**
   * Whether the actor sees the TSIG key: every domain it acts on is one the API key sees, and it is the
   * actor's own unless the actor manages the account (model/roles.ts).
   */
  private sees(actor: Actor, k: StoredTsigKey): boolean {
    const scope = scopeOf(actor);
    return (managesAccount(actor.role) || k.userId === actor.userId) && k.domains.every((d) => seesDomain(scope, d));
  }

  /** Each id must be one of the actor's domains or mirrors; another account's is reported like a missing one. */
  private async checkDomains(ops: Pick<DomainStore, 'domain'>, actor: Actor, ids: number[], p: Problems): Promise<void> {
    for (const id of ids) {
      try {
        await this.domains.owned(ops, actor, id);
      } catch (e) {
        if (!(e instanceof NotFoundError)) throw e;
        p.add('domains', `There is no domain or zone mirror of yours with the id ${id}.`);
      }
    }
  }
}
