/**
 * Members of an account: invited by an owner or admin with a role and, optionally, the only domains they may
 * act on; the invitation's token (shown once, stored hashed, valid INVITATION_DAYS) lets them set a password.
 * A change takes effect at the member's next request (AccountService.authenticate reads the member with each
 * key); a removal deletes their API and TSIG keys in the same transaction. Every change is in the audit trail.
 */
import { ConflictError, NotFoundError, Problems, ScopeError, ValidationError } from '../model/errors.js';
import { checkManage, widens } from '../model/key-scope.js';
import { checkKeepsOwner, checkMemberChange, checkMemberRights, INVITATION_DAYS, memberScope, type Member, type MemberRights } from '../model/roles.js';
import type { AccountStore } from '../store/accounts.js';
import type { DomainStore } from '../store/domains.js';
import type { JournalStore } from '../store/journal.js';
import { UniqueViolation, type Transactions } from '../store/store.js';
import type { UserStore } from '../store/users.js';
import { checkUsername } from './accounts.js';
import { checkNewPassword } from './passwords.js';
import { ownerActor, scopeOf, type Actor } from './actor.js';
import { generateKey, hashKey } from './api-key-material.js';
import { accountChange } from './audit.js';
import { hashPassword } from './passwords.js';

type MemberOps = UserStore & Pick<AccountStore, 'lockAccount' | 'accountByName'> & Pick<DomainStore, 'domain'> & JournalStore;
type MembersStore = MemberOps & Transactions<MemberOps>;

const DAY = 86_400_000;

/** What a member's change or removal shows in the audit trail. */
const audited = (m: Member) => ({ id: m.id, username: m.username, role: m.role, domains: m.domains });

const taken = (username: string) => new ConflictError('username', `The user name '${username}' is taken; user names are unique in the whole service.`);

export interface NewMember {
  member: Member;
  /** The invitation token, shown only this once; null for a member made with a password (the command line). */
  invitation: string | null;
}

export class MemberService {
  constructor(
    private readonly store: MembersStore,
    private readonly now: () => number,
  ) {}

  /** Every member of the actor's account (any member may read who else is in it). */
  list(actor: Actor): Promise<Member[]> {
    return this.store.listUsers(actor.accountId);
  }

  get(actor: Actor, id: number): Promise<Member> {
    return this.found(this.store, actor, id);
  }

  /** Invites a member: 201 with the token that lets them set a password. */
  async invite(actor: Actor, input: { username: string; role?: unknown; domains?: unknown }): Promise<NewMember> {
    checkManage(scopeOf(actor), 'members');
    const rights = this.rightsOf(input);
    checkMemberChange(actor.role, null, rights.role);
    checkUsername(input.username);
    this.checkWithin(actor, rights);
    const token = generateKey();
    const expires = this.now() + INVITATION_DAYS * DAY;
    const member = await this.insert(actor, input.username, rights, { passwordHash: '', invitationHash: hashKey(token), invitationExpiresAt: expires });
    return { member, invitation: token };
  }

  /**
   * Adds a member with a password (`zonehost user add NAME --account OWNER --role ROLE`): the operator acts as
   * the account's owner.
   */
  async addWithPassword(accountName: string, username: string, password: string, input: { role?: unknown; domains?: unknown }): Promise<Member> {
    const account = await this.store.accountByName(accountName);
    if (!account) throw ValidationError.one('account', `There is no account named '${accountName}'.`);
    const rights = this.rightsOf(input);
    checkUsername(username);
    checkNewPassword('password', password);
    const actor = ownerActor(account.id, '', 'cli');
    return this.insert(actor, username, rights, { passwordHash: await hashPassword(password), invitationHash: null, invitationExpiresAt: null });
  }

  /** Sets the invited member's password; the token then stops working. No key needed: the token is the proof. */
  async accept(token: string, password: string, remoteAddr: string): Promise<Member> {
    checkNewPassword('password', password);
    const hash = await hashPassword(password);
    return this.store.transaction(async (tx) => {
      const now = this.now();
      const member = token.length > 0 && token.length <= 256 ? await tx.userByInvitation(hashKey(token), now) : undefined;
      if (!member) throw ValidationError.one('token', 'This invitation is unknown, already used or expired; ask for a new one.');
      await tx.acceptInvitation(member.id, hash);
      const actor: Actor = { accountId: member.accountId, userId: member.id, role: member.role, username: member.username, keyLabel: '', iface: 'v1', remoteAddr };
      await tx.appendJournal([accountChange(actor, now, 'member.accept', member.id, null, audited(member))]);
      return { ...member, invitationExpiresAt: null };
    });
  }

  /** Changes a member's role or domains (absent: unchanged; domains null: every domain). */
  async update(actor: Actor, id: number, patch: { role?: unknown; domains?: unknown }): Promise<Member> {
    checkManage(scopeOf(actor), 'members');
    const p = new Problems();
    const change = checkMemberRights(patch, p);
    p.throwIfAny();
    return this.store.transaction(async (tx) => {
      await tx.lockAccount(actor.accountId);
      const current = await this.found(tx, actor, id);
      const next: MemberRights = { role: change.role ?? current.role, domains: change.domains === undefined ? current.domains : change.domains };
      checkMemberChange(actor.role, current.role, next.role);
      this.checkWithin(actor, current);
      this.checkWithin(actor, next);
      checkKeepsOwner(await tx.countOwners(actor.accountId), current.role, next.role);
      await this.checkDomains(tx, actor, next.domains);
      await tx.updateUser(id, next);
      const after = { ...current, ...next };
      await tx.appendJournal([accountChange(actor, this.now(), 'member.update', id, audited(current), audited(after))]);
      return after;
    });
  }

  /** Removes a member; their API keys and TSIG keys stop working at once (deleted in the same transaction). */
  async remove(actor: Actor, id: number): Promise<void> {
    checkManage(scopeOf(actor), 'members');
    await this.store.transaction(async (tx) => {
      await tx.lockAccount(actor.accountId);
      const current = await this.found(tx, actor, id);
      checkMemberChange(actor.role, current.role);
      this.checkWithin(actor, current);
      checkKeepsOwner(await tx.countOwners(actor.accountId), current.role, null);
      await tx.deleteUser(actor.accountId, id);
      await tx.appendJournal([accountChange(actor, this.now(), 'member.delete', id, audited(current), null)]);
    });
  }

  private rightsOf(input: { role?: unknown; domains?: unknown }): MemberRights {
    const p = new Problems();
    const rights = checkMemberRights(input, p);
    if (input.role === undefined) p.add('role', 'Give the member a role: owner, admin, editor or viewer.');
    p.throwIfAny();
    return { role: rights.role ?? 'viewer', domains: rights.domains ?? null };
  }

  /**
   * A member's rights may not exceed the actor's own (a member limited to some domains invites no one wider):
   * compared on what a role can say (domains, writing); a key's record and network limits are not a member's.
   */
  private checkWithin(actor: Actor, rights: MemberRights): void {
    const { domains, read_only } = scopeOf(actor);
    const wider = widens(memberScope(rights), { ...(domains ? { domains } : {}), ...(read_only ? { read_only } : {}) });
    if (wider) throw new ScopeError(wider, `You cannot give or change a member's ${wider === 'read_only' ? 'right to write' : wider} beyond your own (scope.${wider}).`);
  }

  private async checkDomains(ops: Pick<DomainStore, 'domain'>, actor: Actor, domains: number[] | null): Promise<void> {
    const missing: number[] = [];
    for (const id of domains ?? []) if (!(await ops.domain(actor.accountId, id))) missing.push(id);
    if (missing.length) throw ValidationError.one('domains', `There is no domain with id ${missing.join(', ')} in this account.`);
  }

  private async insert(actor: Actor, username: string, rights: MemberRights, secret: { passwordHash: string; invitationHash: string | null; invitationExpiresAt: number | null }): Promise<Member> {
    try {
      return await this.store.transaction(async (tx) => {
        await tx.lockAccount(actor.accountId);
        await this.checkDomains(tx, actor, rights.domains);
        const now = this.now();
        const member = await tx.insertUser(actor.accountId, { username, ...rights, ...secret }, now);
        await tx.appendJournal([accountChange(actor, now, 'member.create', member.id, null, audited(member))]);
        return member;
      });
    } catch (e) {
      if (e instanceof UniqueViolation) throw taken(username);
      throw e;
    }
  }

  private async found(ops: Pick<UserStore, 'user'>, actor: Actor, id: number): Promise<Member> {
    const m = Number.isSafeInteger(id) && id > 0 ? await ops.user(actor.accountId, id) : undefined;
    if (!m) throw new NotFoundError('member');
    return m;
  }
}
