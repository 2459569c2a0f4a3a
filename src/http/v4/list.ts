/**
 * Linode v4's lists: `{"data", "page", "pages", "results"}`, pages from 1 of `page_size` 25–500 items (100
 * unless asked), narrowed and ordered by the `X-Filter` header, a JSON object of:
 * - `"field": value` — equality (on a list field such as `tags`: the list holds the value);
 * - `"field": {"+neq"|"+contains"|"+gt"|"+gte"|"+lt"|"+lte": value}` — Linode's operators;
 * - `"+and": [filter, …]`, `"+or": [filter, …]` — each a filter of this grammar;
 * - `"+order_by": "field"` and `"+order": "asc"|"desc"` — at the top level only.
 * Only the fields a resource lets clients filter on are taken (Linode's "Filterable" fields, and `id`);
 * anything else is a 400 naming X-Filter. The items are the v4 objects themselves: the door filters what it shows.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { V4Failure } from './errors.js';

export const MIN_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 500;
export const DEFAULT_PAGE_SIZE = 100;

/** The query string of a list (unknown fields are ignored, as Linode ignores them). */
export const ListQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 2 ** 31 - 1, default: 1 })),
  page_size: Type.Optional(Type.Integer({ minimum: MIN_PAGE_SIZE, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE })),
});

export interface ListPage<T> {
  data: T[];
  page: number;
  pages: number;
  results: number;
}

/** A filter's shape is bounded: nesting and the number of conditions (a header is at most a few KiB anyway). */
const MAX_DEPTH = 8;
const MAX_CONDITIONS = 100;

type Item = Record<string, unknown>;
type Test = (item: Item) => boolean;

const bad = (reason: string) => V4Failure.of(400, reason, 'X-Filter');

type Scalar = string | number | boolean | null;
const isScalar = (v: unknown): v is Scalar => v === null || ['string', 'number', 'boolean'].includes(typeof v);

/** Orders two field values as Linode does: numbers by value, strings by code point, null first. */
function compare(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return -1;
  if (b === null || b === undefined) return 1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

const equal = (have: unknown, want: Scalar): boolean => (Array.isArray(have) ? have.includes(want) : have === want);

const OPERATORS: Record<string, (have: unknown, want: Scalar) => boolean> = {
  '+neq': (have, want) => !equal(have, want),
  '+contains': (have, want) => (Array.isArray(have) ? have.some((h) => String(h).includes(String(want))) : typeof have === 'string' && have.includes(String(want))),
  '+gt': (have, want) => have !== null && compare(have, want) > 0,
  '+gte': (have, want) => have !== null && compare(have, want) >= 0,
  '+lt': (have, want) => have !== null && compare(have, want) < 0,
  '+lte': (have, want) => have !== null && compare(have, want) <= 0,
};

class FilterParser {
  private conditions = 0;
  constructor(private readonly fields: ReadonlySet<string>) {}

  /** A filter object (its `+order_by`/`+order` are the caller's) as one test over items. */
  object(node: unknown, depth: number): Test {
    if (depth > MAX_DEPTH) throw bad(`The filter is nested more than ${MAX_DEPTH} levels deep.`);
    if (!node || typeof node !== 'object' || Array.isArray(node)) throw bad('Each filter must be a JSON object.');
    const tests: Test[] = [];
    for (const [key, value] of Object.entries(node)) {
      if (key === '+order_by' || key === '+order') {
        if (depth > 0) throw bad(`${key} is only allowed at the top level of the filter.`);
        continue;
      }
      if (++this.conditions > MAX_CONDITIONS) throw bad(`The filter has more than ${MAX_CONDITIONS} conditions.`);
      if (key === '+and' || key === '+or') tests.push(this.combined(key, value, depth));
      else if (key.startsWith('+')) throw bad(`Unknown filter operator ${key}.`);
      else tests.push(this.field(key, value));
    }
    return (item) => tests.every((t) => t(item));
  }

  private combined(key: '+and' | '+or', value: unknown, depth: number): Test {
    if (!Array.isArray(value) || value.length === 0) throw bad(`${key} takes a non-empty list of filters.`);
    const tests = value.map((v) => this.object(v, depth + 1));
    return key === '+and' ? (item) => tests.every((t) => t(item)) : (item) => tests.some((t) => t(item));
  }

  private field(name: string, value: unknown): Test {
    if (!this.fields.has(name)) throw bad(`Cannot filter on ${name}`);
    if (isScalar(value)) return (item) => equal(item[name], value);
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw bad(`The filter on ${name} must be a value or an object of operators.`);
    const tests = Object.entries(value).map(([op, want]): Test => {
      const test = OPERATORS[op];
      if (!test) throw bad(`Unknown filter operator ${op} on ${name}.`);
      if (!isScalar(want)) throw bad(`The operand of ${op} on ${name} must be a string, number, boolean or null.`);
      return (item) => test(item[name], want);
    });
    if (tests.length === 0) throw bad(`The filter on ${name} names no operator.`);
    return (item) => tests.every((t) => t(item));
  }
}

interface Filter {
  test: Test;
  order: { by: string; direction: 1 | -1 } | null;
}

/** The request's X-Filter (none: every item, in id order). `fields`: what may be filtered and ordered on. */
export function parseFilter(header: string | string[] | undefined, fields: ReadonlySet<string>): Filter {
  if (header === undefined) return { test: () => true, order: null };
  const text = Array.isArray(header) ? header.join(',') : header;
  let node: unknown;
  try {
    node = JSON.parse(text);
  } catch {
    throw bad('The X-Filter header is not valid JSON.');
  }
  const test = new FilterParser(fields).object(node, 0);
  const { '+order_by': by, '+order': order } = node as Record<string, unknown>;
  if (by === undefined) {
    if (order !== undefined) throw bad('+order needs +order_by.');
    return { test, order: null };
  }
  if (typeof by !== 'string' || !fields.has(by)) throw bad(`Cannot order by ${String(by)}`);
  if (order !== undefined && order !== 'asc' && order !== 'desc') throw bad('+order must be "asc" or "desc".');
  return { test, order: { by, direction: order === 'desc' ? -1 : 1 } };
}

/** One page of `items` (in id order) as the request's query and X-Filter select it. */
export function listPage<T extends { id: number }>(req: FastifyRequest, items: readonly T[], fields: ReadonlySet<string>): ListPage<T> {
  const { page = 1, page_size: size = DEFAULT_PAGE_SIZE } = req.query as { page?: number; page_size?: number };
  const filter = parseFilter(req.headers['x-filter'], fields);
  const selected = items.filter((i) => filter.test(i as unknown as Item));
  const order = filter.order;
  if (order) selected.sort((a, b) => order.direction * compare((a as unknown as Item)[order.by], (b as unknown as Item)[order.by]) || a.id - b.id);
  return {
    data: selected.slice((page - 1) * size, page * size),
    page,
    pages: Math.max(1, Math.ceil(selected.length / size)),
    results: selected.length,
  };
}
