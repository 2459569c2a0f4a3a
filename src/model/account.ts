/** Accounts and their API keys as stored: what the services hand the doors (the key's secret is never here). */
import type { KeyScope } from './key-scope.js';

/** A suspended account's keys, TSIG keys and sign-ins are refused; its zones are still served. */
export type AccountStatus = 'active' | 'suspended';

export interface Account {
  id: number;
  username: string;
  passwordHash: string;
  createdAt: number;
  status: AccountStatus;
  /** The operator's limits for this account (`zonehost account set`); null: the node's defaults. */
  maxDomains: number | null;
  maxRecords: number | null;
  /** Members without a second factor may only set one up (PATCH /v1/account). */
  requireTwoFactor: boolean;
}

/** What the operator changes on an account (`zonehost account set`); an absent field stays as it is. */
export interface AccountControls {
  status?: AccountStatus;
  /** null: back to the node's default. */
  maxDomains?: number | null;
  maxRecords?: number | null;
}

/** An account as the operator lists it (`zonehost account list`). */
export interface AccountSummary {
  id: number;
  /** The account's name: the user who made it. */
  name: string;
  /** Its members (users), the one who made it among them. */
  members: number;
  domains: number;
  records: number;
  status: AccountStatus;
  maxDomains: number | null;
  maxRecords: number | null;
}

export interface ApiKeyRow {
  id: number;
  accountId: number;
  prefix: string;
  label: string;
  createdAt: number;
  expiresAt: number | null;
  scope: KeyScope;
  /** The member who made the key. */
  userId: number;
  /** A panel sign-in (a password or a passkey made it), which a password change revokes. */
  session: boolean;
}
