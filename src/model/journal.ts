/**
 * The change journal (table `changes`): one entry per change a write made to a zone, with its images before and
 * after; and the account's own changes (members, API and TSIG keys), with domain id 0 and serial 0.
 */

export interface StoredJournalEntry {
  id: number;
  domainId: number;
  accountId: number | null;
  serial: number;
  at: number;
  action: string;
  objectId: number | null;
  keyLabel: string;
  /** The API key that made the change; null when none did (DNS UPDATE names its TSIG key in keyLabel). */
  keyId: number | null;
  /** The member behind the change (their user name as it was then); null and '' for the server itself. */
  userId: number | null;
  username: string;
  iface: string;
  remoteAddr: string;
  before: unknown;
  after: unknown;
}

export type NewJournalEntry = Omit<StoredJournalEntry, 'id'>;

/**
 * The journal action of a new serial for new addresses of a zone's ALIAS targets (no record changed): a
 * record change as IXFR and the DNS server's patches see it (`record.`), touching only the apex's SOA.
 */
export const ALIASES_RESOLVED = 'record.aliases_resolved';
