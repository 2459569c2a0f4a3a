/**
 * The items of a bulk change as the service takes them, and their problems as the request names them:
 * JSON pointers into the body (`/changes/3/address`).
 */
import type { TSchema } from '@sinclair/typebox';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { RECORD_TYPES } from '../../../model/records/index.js';
import type { ChangeItem, ItemProblem } from '../../../services/bulk-changes.js';
import { HttpProblem, schemaErrors, type ProblemError } from '../problem.js';
import { RECORD_SCHEMAS, type RecordSchemas } from '../records/schemas.js';
import { exact } from '../validators.js';

/** Items' fields are checked as interface B checks bodies (the same validators as the routes of each type). */
const compiled = new Map<string, { create: ValidateFunction; update: ValidateFunction }>(
  RECORD_TYPES.map((t) => {
    const s = RECORD_SCHEMAS.get(t.type) as RecordSchemas;
    return [t.type, { create: exact.compile(s.create as TSchema), update: exact.compile(s.patch as TSchema) }];
  }),
);

const escape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** The JSON pointer of a problem in the request body. */
export function pointerOf(p: ItemProblem): string {
  if (p.index === null) return '/changes';
  return `/changes/${p.index}${p.field ? `/${p.field.split('.').map(escape).join('/')}` : ''}`;
}

/** At most this many schema errors are explained per item (and for the list): an item with a million unknown fields gets a page, not a million lines. */
const MAX_ERRORS_PER_ITEM = 50;

/**
 * Ajv's errors on the body (instance paths `/changes/3/op`) as problems of items, or of the list as a whole.
 * They are explained item by item, so the work grows with the items, not with their square.
 */
export function bodyProblems(errors: ErrorObject[]): { list: ProblemError[]; items: Map<number, ItemProblem[]> } {
  const groups = new Map<number | null, ErrorObject[]>();
  for (const e of errors) {
    const m = /^\/changes\/(\d+)(?:\/|$)/.exec(e.instancePath);
    const index = m ? Number(m[1]) : null;
    const group = groups.get(index);
    if (!group) groups.set(index, [e]);
    else if (group.length < MAX_ERRORS_PER_ITEM) group.push(e);
  }
  const list: ProblemError[] = [];
  const items = new Map<number, ItemProblem[]>();
  for (const [index, group] of groups) {
    for (const e of schemaErrors(group, 'body')) {
      const parts = (e.field ?? '').split('.');
      if (index === null) {
        list.push({ field: e.field === null ? '' : `/${parts.map(escape).join('/')}`, reason: e.reason });
        continue;
      }
      const at = items.get(index) ?? [];
      at.push({ index, field: parts.slice(2).join('.') || null, message: e.reason });
      items.set(index, at);
    }
  }
  return { list, items };
}

/** A 422 naming every problem found; nothing was written. */
export const rejected = (problems: ProblemError[]) => new HttpProblem(422, 'The changes were not applied: nothing was written.', problems);

/**
 * The service's items of the request's list. An item that did not fail the list's schema has its type's own
 * fields checked against the type's schema; its problems join `found` (by item index).
 */
export function itemsOf(raw: Record<string, unknown>[], found: Map<number, ItemProblem[]>): ChangeItem[] {
  return raw.map((item, index) => {
    if (!item || typeof item !== 'object' || Array.isArray(item)) return { op: undefined, type: undefined, fields: {} };
    const { op, type, id, ...fields } = item;
    // The type's own fields, against its schema, unless the item already failed.
    const check = !found.has(index) && typeof type === 'string' && (op === 'create' || op === 'update') ? compiled.get(type)?.[op] : undefined;
    if (check && !check(fields)) {
      found.set(
        index,
        schemaErrors((check.errors ?? []).slice(0, MAX_ERRORS_PER_ITEM), 'body').map((e) => ({ index, field: e.field, message: e.reason })),
      );
    }
    return { op, type, ...(id === undefined ? {} : { id }), fields };
  });
}
