/** Cursor pagination, shared by the aggregates' listings. */

/** Rows with id greater than `after`, at most `limit`. */
export interface Page {
  after?: number;
  limit?: number;
}

const DEFAULT_PAGE = 100;

/** The number of rows a page holds: `limit` kept within 1..10000, DEFAULT_PAGE when not given. */
export const pageLimit = (limit?: number) => Math.max(1, Math.min(limit ?? DEFAULT_PAGE, 10_000));
