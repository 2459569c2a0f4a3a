/** Who is making a request: every service call carries one, for ownership checks and the audit trail. */
export interface Actor {
  accountId: number;
  username: string;
  /** Label of the API key used ("" when none, e.g. the command line). */
  keyLabel: string;
  /** 'system': the server itself, e.g. a timed DNSSEC step (the zone owner's account, for the audit trail). */
  iface: 'v3' | 'v1' | 'cli' | 'dns' | 'system';
  /** Client address as the HTTP layer determined it. */
  remoteAddr: string;
}

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
