/** Column values shared by the aggregates: numbers as the drivers give them back, and a raised serial. */
import { sql } from 'kysely';

// PostgreSQL returns bigint as a string; all our bigints (ms times, serials) fit a double exactly.
/** A number column as a number, on either database. */
export const num = (v: unknown): number => (typeof v === 'number' ? v : Number(v));

/** A nullable number column. */
export const numOrNull = (v: unknown): number | null => (v === null ? null : num(v));

/** A serial column's new value: max(serial + 1, floor) (see DomainStore.bumpSerial, CatalogStore.bumpCatalogSerial). */
export const raisedSerial = (floor: number) => sql<number>`case when serial + 1 > ${floor} then serial + 1 else ${floor} end`;
