/**
 * Lists this node has read (DialectSql.rowWithList with `keep`), each with a version: a later read of the same
 * list asks the database only whether that version still holds, and answers with the rows kept here when it does.
 * Nothing is served on trust: every read still sees the database as it is then.
 *
 * On SQLite the version is the file's (sqlite/sql.ts: another connection's commits and this one's changes). On
 * PostgreSQL it is the list's rows' versions, asked in the same statement as the list: a row's version is its
 * `xmin`, the transaction that wrote it, which no other transaction gets while the number lasts. Two things
 * could reuse one, and each drops what is kept: a primary replaced by a replica that lost its last transactions
 * (their numbers are given out again) means new connections, and every new connection of the pool starts a new
 * generation; a wrap-around of the 32-bit numbers takes billions of transactions, so nothing is kept longer
 * than MAX_AGE_MS.
 */

/** How long a list's versions are trusted after the read that returned its rows. */
const MAX_AGE_MS = 60_000;
/** At most this many rows are kept over all lists; the lists used least recently go first. */
const MAX_ROWS = 20_000;

interface Kept {
  versions: string;
  rows: readonly Record<string, unknown>[];
  readAt: number;
}

export class KeptLists {
  private readonly lists = new Map<string, Kept>();
  private rowCount = 0;
  /** Bumped by every new connection (see above): a read sent before it keeps nothing. */
  generation = 0;

  /** The list kept under `slot`, if it may still be trusted at `now`. */
  get(slot: string, now: number): Kept | undefined {
    const kept = this.lists.get(slot);
    if (!kept) return undefined;
    this.remove(slot, kept);
    if (now - kept.readAt > MAX_AGE_MS) return undefined;
    this.lists.set(slot, kept); // the most recently used last
    this.rowCount += kept.rows.length;
    return kept;
  }

  /** Keeps `rows`, read with these versions in `generation` at `readAt`, unless a new connection came since. */
  set(slot: string, generation: number, kept: Kept): void {
    if (generation !== this.generation || kept.rows.length > MAX_ROWS) return;
    const old = this.lists.get(slot);
    if (old) this.remove(slot, old);
    this.lists.set(slot, kept);
    this.rowCount += kept.rows.length;
    for (const [oldest, list] of this.lists) {
      if (this.rowCount <= MAX_ROWS) break;
      this.remove(oldest, list);
    }
  }

  /** A new connection: whatever was read before it is no longer trusted. */
  forget(): void {
    this.generation++;
    this.lists.clear();
    this.rowCount = 0;
  }

  private remove(slot: string, kept: Kept): void {
    this.lists.delete(slot);
    this.rowCount -= kept.rows.length;
  }
}
