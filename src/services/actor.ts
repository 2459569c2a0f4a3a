import { UNRESTRICTED, type KeyScope } from '../model/key-scope.js';
import type { AccountStore } from '../store/accounts.js';

/** Who is making a request: every service call carries one, for ownership checks and the audit trail. */
export interface Actor {
  accountId: number;
  username: string;
  /** Label of the API key used ("" when none, e.g. the command line). */
  keyLabel: string;
  /** The API key used, with its scope; absent for callers without one (command line, DNS, the server itself). */
  key?: { id: number; scope: KeyScope; expiresAt: number | null };
  /** 'system': the server itself, e.g. a timed DNSSEC step (the zone owner's account, for the audit trail). */
  iface: 'v3' | 'v1' | 'pdns' | 'cli' | 'dns' | 'system';
  /** Client address as the HTTP layer determined it. */
  remoteAddr: string;
}

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
