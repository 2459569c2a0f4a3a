/**
 * Members and roles (issue 30): who in an account may do what. What a role allows that an API key scope can
 * say (a viewer reads only, a member limited to some domains sees only those) is said as a KeyScope
 * (`memberScope`), which AccountService.authenticate intersects with each key's own scope, so every service's
 * scope checks hold for members too. The rules a scope cannot say (managing members, other members' keys)
 * are the functions below, which the services ask; no door decides any of it.
 */
import { ConflictError, Problems, ScopeError } from './errors.js';
import { seesDomain, type KeyScope } from './key-scope.js';

export const ROLES = ['owner', 'admin', 'editor', 'viewer'] as const;
export type Role = (typeof ROLES)[number];
export const isRole = (s: unknown): s is Role => typeof s === 'string' && (ROLES as readonly string[]).includes(s);

/** What a member may do: the role, and the only domains (null: every domain of the account, also later ones). */
export interface MemberRights {
  role: Role;
  domains: number[] | null;
}

/** A member as the services hand it to the doors (no password, no invitation token). */
export interface Member extends MemberRights {
  id: number;
  accountId: number;
  username: string;
  createdAt: number;
  /** When the pending invitation expires; null once accepted (or for members made with a password). */
  invitationExpiresAt: number | null;
}

/** How long an invitation token works. */
export const INVITATION_DAYS = 7;
export const MAX_MEMBER_DOMAINS = 1000;

/** The member's rights as a key scope: viewers read only; a domain list limits like a key's. */
export function memberScope(m: MemberRights): KeyScope {
  return { ...(m.role === 'viewer' ? { read_only: true } : {}), ...(m.domains ? { domains: m.domains } : {}) };
}

/** Whether the member may see (and transfer) the domain now. */
export const memberSees = (m: MemberRights, domainId: number): boolean => seesDomain(memberScope(m), domainId);

/** Whether the member may write to the domain now (DNS UPDATE with a TSIG key they made). */
export const memberWrites = (m: MemberRights, domainId: number): boolean => m.role !== 'viewer' && memberSees(m, domainId);

/** Owners and admins manage members and see every member's keys; editors and viewers only their own. */
export const managesAccount = (role: Role): boolean => role === 'owner' || role === 'admin';

/** Refuses `what` (members, other members' keys, account settings) to editors and viewers. */
export function checkManagesAccount(role: Role, what: string): void {
  if (!managesAccount(role)) throw new ScopeError('role', `Your role (${role}) cannot change ${what}; only owners and admins can.`);
}

/**
 * Whether a member of role `actor` may change or remove a member (or their keys) of role `target`, and give
 * the role `next`: admins cannot touch owners nor make one (that would give what they do not have).
 */
export function checkMemberChange(actor: Role, target: Role | null, next?: Role): void {
  checkManagesAccount(actor, 'members');
  if (actor === 'owner') return;
  if (target === 'owner') throw new ScopeError('role', 'Admins cannot change or remove owners, nor their keys.');
  if (next === 'owner') throw new ScopeError('role', 'Only an owner can make another member an owner.');
}

/** An account always keeps an owner: the last one may not be removed or given another role. */
export function checkKeepsOwner(owners: number, target: Role, next: Role | null): void {
  if (target === 'owner' && next !== 'owner' && owners <= 1) {
    throw new ConflictError(next === null ? null : 'role', 'An account keeps at least one owner; make another member an owner first.');
  }
}

/** Checks a role and domain list as a client sends them; `domains` null (or absent) means every domain. */
export function checkMemberRights(raw: { role?: unknown; domains?: unknown }, p: Problems): Partial<MemberRights> {
  const out: Partial<MemberRights> = {};
  if (raw.role !== undefined) {
    if (isRole(raw.role)) out.role = raw.role;
    else p.add('role', `The role must be one of ${ROLES.join(', ')}.`);
  }
  if (raw.domains !== undefined) {
    const d = raw.domains;
    if (d === null) out.domains = null;
    else if (!Array.isArray(d) || !d.every((i) => Number.isSafeInteger(i) && (i as number) > 0)) p.add('domains', 'The domains must be a list of domain ids, or null for every domain.');
    else if (d.length === 0) p.add('domains', 'List at least one domain, or leave domains out (null) to allow every domain.');
    else if (d.length > MAX_MEMBER_DOMAINS) p.add('domains', `A member may be limited to at most ${MAX_MEMBER_DOMAINS} domains.`);
    else out.domains = [...new Set(d as number[])].sort((a, b) => a - b);
  }
  return out;
}
