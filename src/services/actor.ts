import { UNRESTRICTED, type KeyScope } from '../model/key-scope.js';
import type { Role } from '../model/roles.js';
import type { AccountStore } from '../store/accounts.js';

/** Who is making a request: every service call carries one, for ownership checks and the audit trail. */
export interface Actor {
  accountId: number;
  /** The member acting (users.id; an account's first owner has the account's id); the owner for the command line and the server itself. */
  userId: number;
  /** The member's role now (model/roles.ts); 'owner' for the command line and the server itself. */
  role: Role;
  /** The member's user name ('' for the server itself). */
  username: string;
  /** Label of the API key used ("" when none, e.g. the command line). */
  keyLabel: string;
  /**
   * The API key used, with its scope: what the key itself allows within what its member may now (the two
   * intersected, model/key-scope.ts); absent for callers without one (command line, DNS, the server itself).
   */
  key?: { id: number; scope: KeyScope; expiresAt: number | null };
  /** 'system': the server itself, e.g. a timed DNSSEC step (the zone owner's account, for the audit trail). */
  iface: 'v3' | 'v1' | 'v4' | 'pdns' | 'cli' | 'dns' | 'system';
  /** Client address as the HTTP layer determined it. */
  remoteAddr: string;
}

/** A caller the service trusts as the account's first owner: the command line, the server itself. */
export const ownerActor = (accountId: number, username: string, iface: Actor['iface'], keyLabel = '', remoteAddr = ''): Actor => ({
  accountId,
  userId: accountId,
  role: 'owner',
  username,
  keyLabel,
  iface,
  remoteAddr,
});

/**
 * The user behind the actor, whose second factors and sessions are theirs: the one way services find it. Today
 * an account is one user whose id is the account's; with members (issue 30) this reads the actor's user id.
 */
export const userIdOf = (actor: Actor): number => actor.userId;

/** What the actor's key allows (every service checks its calls against it; model/key-scope.ts). */
export const scopeOf = (actor: Actor): KeyScope => actor.key?.scope ?? UNRESTRICTED;

/** Limits on what one account may hold; configurable, with these defaults. */
export interface Limits {
  recordsPerDomain: number;
  domainsPerAccount: number;
  keysPerAccount: number;
  tsigKeysPerAccount: number;
}

export const DEFAULT_LIMITS: Limits = {
  recordsPerDomain: 12000,
  domainsPerAccount: 10000,
  keysPerAccount: 20,
  tsigKeysPerAccount: 100,
};

/**
 * The limits that hold for one account: the operator's own values for it (`zonehost account set
 * --max-domains/--max-records`) over the node's. Read at each write, inside its transaction where there is one,
 * so a change holds from the next request on.
 */
export async function accountLimits(ops: Pick<AccountStore, 'accountById'>, limits: Limits, accountId: number): Promise<Limits> {
  const account = await ops.accountById(accountId);
  return {
    ...limits,
    domainsPerAccount: account?.maxDomains ?? limits.domainsPerAccount,
    recordsPerDomain: account?.maxRecords ?? limits.recordsPerDomain,
  };
}
