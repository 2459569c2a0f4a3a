/**
 * POST /v1/domains/{id}/changes: many record creates, updates and deletes as one write, all or none
 * (services/bulk-changes.ts). Problems are named by JSON pointers into the request (`/changes/3/address`).
 */
import type { ErrorObject } from 'ajv';
import type { FastifyError, FastifyRequest } from 'fastify';
import { NotFoundError } from '../../../model/errors.js';
import type { StoredRecord } from '../../../model/records/index.js';
import { ChangesRejected, type ItemProblem } from '../../../services/bulk-changes.js';
import { v1Domain } from '../domains/representation.js';
import { v1Record } from '../records/routes.js';
import { IdParams, problemResponse, success } from '../shared-schemas.js';
import { allowOnly, checkIfMatch, etagOf, typed, type ResourceRoutes } from '../support.js';
import { bodyProblems, itemsOf, pointerOf, rejected } from './items.js';
import { ChangeList, ChangeResult, MAX_CHANGES } from './schemas.js';

/** The largest body this route takes (or the server's own limit, when that is larger). */
export const CHANGES_BODY_LIMIT = 16 * 1024 * 1024;

const CHANGES_URL = '/domains/:id/changes';
const deleted = (r: StoredRecord) => ({ id: r.id, type: r.type, deleted: true as const });

/**
 * The problems the list's schema found, by item index; throws when the list itself is at fault (not a list
 * of objects, or too long), as its items are then not worth reporting.
 */
function schemaProblems(req: FastifyRequest): Map<number, ItemProblem[]> {
  const err = req.validationError as FastifyError | undefined;
  if (!err) return new Map();
  if (err.validationContext !== 'body') throw err;
  const problems = bodyProblems(err.validation as ErrorObject[]);
  if (problems.list.length > 0) throw rejected(problems.list);
  const body = req.body as { changes?: unknown } | null;
  if (!body || typeof body !== 'object' || !Array.isArray(body.changes)) {
    throw rejected([...problems.items.values()].flat().map((p) => ({ field: pointerOf(p), reason: p.message })));
  }
  return problems.items;
}

export const changeRoutes: ResourceRoutes = (ctx) => async (app) => {
  typed(app).post(
    CHANGES_URL,
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
      const d = await ctx.services.domains.get(actor, req.params.id);
      if (d.kind !== 'master') throw new NotFoundError('domain');
      const found = schemaProblems(req);
      const items = itemsOf((req.body as { changes: Record<string, unknown>[] }).changes, found);
      let result: Awaited<ReturnType<typeof ctx.services.changes.apply>>;
      try {
        result = await ctx.services.changes.apply(actor, d.id, items, {
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
  allowOnly(app, CHANGES_URL, ['POST']);
};
