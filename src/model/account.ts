/** Accounts and their API keys as stored: what the services hand the doors (the key's secret is never here). */
import type { KeyScope } from './key-scope.js';

export interface Account {
  id: number;
  username: string;
  passwordHash: string;
  createdAt: number;
}

export interface ApiKeyRow {
  id: number;
  accountId: number;
  prefix: string;
  label: string;
  createdAt: number;
  expiresAt: number | null;
  scope: KeyScope;
}
