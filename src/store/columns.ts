/** Column values shared by the aggregates: numbers as the drivers give them back, JSON lists, a raised serial, a count of rows. */
import { sql, type SelectQueryBuilder } from 'kysely';
import type { Database } from './schema.js';

// PostgreSQL returns bigint as a string; all our bigints (ms times, serials) fit a double exactly.
/** A number column as a number, on either database. */
export const num = (v: unknown): number => (typeof v === 'number' ? v : Number(v));

/** A nullable number column. */
export const numOrNull = (v: unknown): number | null => (v === null ? null : num(v));

/**
 * A column holding a JSON list. The usual empty one is made without JSON.parse, whose call cost three quarters
 * of toDomain's time when three such columns were parsed for each of 101 domains.
 */
export const jsonList = <T>(text: string): T[] => (text === '[]' ? [] : (JSON.parse(text) as T[]));

/** A serial column's new value: max(serial + 1, floor) (see DomainStore.bumpSerial, CatalogStore.bumpCatalogSerial). */
export const raisedSerial = (floor: number) => sql<number>`case when serial + 1 > ${floor} then serial + 1 else ${floor} end`;

/** How many rows the query (a FROM and WHERE, nothing selected yet) finds. */
export async function countRows<TB extends keyof Database>(q: SelectQueryBuilder<Database, TB, object>): Promise<number> {
  const row = await q.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
  return num(row.n);
}
