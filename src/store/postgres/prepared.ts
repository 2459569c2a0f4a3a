/**
 * Named (prepared) statements. pg sends a query with a name to PostgreSQL to be parsed and planned once per
 * connection, and from then on only its parameters: on a loopback connection that took PostgreSQL's CPU for
 * an API key's lookup from about 230 to 30 µs a query, and pg's from about 150 to 60 (bench/README.md,
 * "Prepared statements"). Every query the store runs repeatedly gets a name; what could make the names grow
 * without end (statements of many parameters, whose text follows their count) runs unnamed.
 */

/** Distinct statements named per process; each connection keeps at most this many prepared. */
export const MAX_NAMED = 300;
/** Statements of more parameters than this (lists of ids, rows of a bulk insert) are not named. */
const MAX_PARAMETERS = 32;
/** Nor statements longer than this: what only bulk work sends. */
const MAX_TEXT = 4000;

const names = new Map<string, string>();

/** The name `text` is prepared under, or undefined when it runs unnamed. */
export function statementName(text: string, parameters: number): string | undefined {
  const known = names.get(text);
  if (known !== undefined) return known;
  if (parameters > MAX_PARAMETERS || text.length > MAX_TEXT || names.size >= MAX_NAMED) return undefined;
  const name = `zh${names.size}`;
  names.set(text, name);
  return name;
}

/**
 * PostgreSQL's refusal to run a prepared statement whose result columns changed since it was planned (a
 * migration added a column to a table it selects `*` from, as a rolling upgrade does under running nodes).
 * The same query succeeds unnamed, or on a fresh connection.
 */
export function isStalePlan(e: unknown): boolean {
  const err = e as { code?: string; message?: string } | null;
  return err?.code === '0A000' && /cached plan must not change result type/i.test(err.message ?? '');
}

/** Whether a statement opens or ends a transaction (a stale plan inside one fails the transaction). */
export const opensTransaction = (text: string): boolean => /^\s*(begin|start\s+transaction)\b/i.test(text);
export const endsTransaction = (text: string): boolean => /^\s*(commit|end|abort|rollback(?!\s+(?:work\s+|transaction\s+)?to\b))\b/i.test(text);
