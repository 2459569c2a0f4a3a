/**
 * POST /v1/domains/{id}/changes: many record creates, updates and deletes as one write, all or none
 * (services/bulk-changes.ts). Problems are named by JSON pointers into the request (`/changes/3/address`).
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type TSchema } from '@sinclair/typebox';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { FastifyError, FastifyInstance } from 'fastify';
import { NotFoundError } from '../../model/errors.js';
import { RECORD_TYPES, type StoredRecord } from '../../model/records/index.js';
import { CHANGE_OPS, ChangesRejected, type ChangeItem, type ItemProblem } from '../../services/bulk-changes.js';
import { v1Domain } from './domains.js';
import { HttpProblem, schemaErrors, type ProblemError } from './problem.js';
import { v1Record } from './records.js';
import { AnyRecord, IdParams, RECORD_SCHEMAS, problemResponse, success, type RecordSchemas } from './schemas.js';
import { exact } from './validators.js';
import { allowOnly, checkIfMatch, etagOf, type RouteContext } from './support.js';

/** The most changes one request may carry. */
export const MAX_CHANGES = 30_000;
/** The largest body this route takes (or the server's own limit, when that is larger). */
export const CHANGES_BODY_LIMIT = 16 * 1024 * 1024;

const typeNames = RECORD_TYPES.map((t) => t.type);
/** An enum rather than a union of literals: a bad value is one error, not one per type. */
const recordTypeName = Type.Unsafe<string>({ type: 'string', enum: typeNames, description: `one of ${typeNames.join(', ')}` });

export const ChangeItemSchema = Type.Object(
  {
    op: Type.Unsafe<string>({ type: 'string', enum: [...CHANGE_OPS], description: `one of ${CHANGE_OPS.join(', ')}` }),
    type: recordTypeName,
    id: Type.Optional(Type.Integer({ minimum: 1, description: 'The record to update or delete (required for them; refused for create)' })),
  },
  {
    additionalProperties: true,
    title: 'Change',
    description:
      'One change. create: the fields of the type\'s create body ({TYPE}Create, e.g. ACreate: name, address, ttl). update: id and any of the type\'s fields ({TYPE}Patch), laid over the stored record as PATCH does; the type must be the record\'s. delete: id only.',
  },
);

export const ChangeList = Type.Object(
  {
    changes: Type.Array(ChangeItemSchema, { maxItems: MAX_CHANGES, description: `The changes, applied together (at most ${MAX_CHANGES})` }),
  },
  { additionalProperties: false, title: 'ChangeList', description: 'Record changes to apply as one write, all or none' },
);

const DeletedRecord = Type.Object(
  {
    id: Type.Integer({ minimum: 1, description: 'The deleted record\'s id' }),
    type: recordTypeName,
    deleted: Type.Literal(true),
  },
  { additionalProperties: false, title: 'DeletedRecord', description: 'A record the change list deleted' },
);

export const ChangeResult = Type.Object(
  {
    serial: Type.Integer({ minimum: 0, description: 'The zone\'s serial after the changes (raised once for the whole list)' }),
    changes: Type.Array(Type.Union([AnyRecord, DeletedRecord]), {
      description: 'One entry per change, in the order of the request: the record as created or updated (with its id), or {id, type, deleted: true}',
    }),
  },
  { additionalProperties: false, title: 'ChangeResult' },
);

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
function bodyProblems(errors: ErrorObject[]): { list: ProblemError[]; items: Map<number, ItemProblem[]> } {
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

const rejected = (problems: ProblemError[]) => new HttpProblem(422, 'The changes were not applied: nothing was written.', problems);

export function changeRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const { services } = ctx;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const url = '/domains/:id/changes';

  r.post(
    url,
    {
      bodyLimit: Math.max(app.initialConfig.bodyLimit ?? 0, CHANGES_BODY_LIMIT),
      attachValidation: true,
      schema: {
        tags: ['records'],
        summary: 'Apply many record changes at once, all or none',
        description:
          'Creates, updates and deletes records of the domain in one write: either every change is applied, with one serial increase and one record.batch entry in the audit trail, or none is (422, one problem per fault, each named by a JSON pointer such as /changes/3/address). ' +
          'The zone rules (a CNAME alone at its name, no duplicates, DS at a delegation, in-zone name servers with addresses) are judged on the zone as the whole list leaves it, so an A record can be replaced by a CNAME of the same name in one request. ' +
          `With If-Match (the domain's ETag, from GET /v1/domains/{id}), answers 412 when the domain changed since it was read. At most ${MAX_CHANGES} changes and ${CHANGES_BODY_LIMIT / 1024 / 1024} MiB.`,
        params: IdParams,
        body: ChangeList,
        response: { 200: success(ChangeResult, 'Every change applied; one entry per change, in order'), default: problemResponse },
      },
    },
    async (req, reply) => {
      const actor = ctx.actor(req);
      // The domain first: another account's or a missing one is 404, whatever the body.
      const d = await services.domains.get(actor, req.params.id);
      if (d.kind !== 'master') throw new NotFoundError('domain');
      const body = req.body as { changes?: unknown } | null;
      let found = new Map<number, ItemProblem[]>();
      const err = req.validationError as FastifyError | undefined;
      if (err) {
        if (err.validationContext !== 'body') throw err;
        const problems = bodyProblems(err.validation as ErrorObject[]);
        // The list itself is not a list of objects (or is too long): nothing more to judge.
        // (Its items are then not reported: with too many of them, the list is at fault.)
        if (problems.list.length > 0) throw rejected(problems.list);
        if (!body || typeof body !== 'object' || !Array.isArray(body.changes)) {
          throw rejected([...problems.items.values()].flat().map((p) => ({ field: pointerOf(p), reason: p.message })));
        }
        found = problems.items;
      }
      const raw = (body as { changes: Record<string, unknown>[] }).changes;
      const items: ChangeItem[] = raw.map((item, index) => {
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
      let result: Awaited<ReturnType<typeof services.changes.apply>>;
      try {
        result = await services.changes.apply(actor, d.id, items, {
          remoteAddr: req.ip,
          found,
          // Inside the write, on the domain as it is then: the check and the changes are one step.
          precondition: (current) => checkIfMatch(req, etagOf(v1Domain(current))),
        });
      } catch (e) {
        if (e instanceof ChangesRejected) throw rejected(e.problems.map((p) => ({ field: pointerOf(p), reason: p.message })));
        throw e;
      }
      const shown = result.outcomes.map((o) => (o.op === 'delete' ? deleted(o.record) : v1Record(o.record)));
      return reply.send({ serial: result.serial, changes: shown } as never);
    },
  );
  allowOnly(app, url, ['POST']);
}

const deleted = (r: StoredRecord) => ({ id: r.id, type: r.type, deleted: true as const });
