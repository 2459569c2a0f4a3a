/** The change journal (table `changes`): one entry per change a write made to a zone, with its images before and after. */

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
  iface: string;
  remoteAddr: string;
  before: unknown;
  after: unknown;
}

export type NewJournalEntry = Omit<StoredJournalEntry, 'id'>;
