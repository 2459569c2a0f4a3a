/**
 * /v1/domains/{id}/records and /v1/domains/{id}/{TYPE}[/{rid}] for every type of the registry. A type's
 * schemas and its mapping to the canonical record come from its module (v1Fields, fromV1, toV1).
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { NotFoundError } from '../../model/errors.js';
import { checkRecord, fromV1, RECORD_TYPES, toV1, type RecordContext, type RecordType, type StoredRecord } from '../../model/records/index.js';
import type { Actor } from '../../services/index.js';
import { bodyFailure, rejectBody, type FieldMap } from './problem.js';
import { AnyRecord, IdParams, RecordListQuery, RecordParams, RECORD_SCHEMAS, TypeListQuery, problemResponse, success, type RecordSchemas } from './schemas.js';
import { allowOnly, checkIfMatch, etagOf, page, type RouteContext } from './support.js';

/** A record as interface B shows it: id, type and the type's own fields. */
export function v1Record(r: StoredRecord): Record<string, unknown> {
  // Object.assign rather than a spread: several times faster on lists of thousands (a bulk change's answer).
  return Object.assign({ id: r.id, type: r.type }, toV1(r));
}

/** Problems are named by the registry's fields, which are interface B's: nothing to translate. */
const sameField: FieldMap = (field) => field;

export function recordRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const { services } = ctx;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  /** The caller's domain (a master zone; zone mirrors have no editable records here). */
  async function domainOf(actor: Actor, id: number) {
    const d = await services.domains.get(actor, id);
    if (d.kind !== 'master') throw new NotFoundError('domain');
    return d;
  }

  r.get(
    '/domains/:id/records',
    {
      schema: {
        tags: ['records'],
        summary: 'List all records of a domain',
        description: 'Every record of the domain, each with its id and type, ordered by id.',
        params: IdParams,
        querystring: RecordListQuery,
        response: { 200: success(Type.Array(AnyRecord), 'A page of records', ['Link']), default: problemResponse },
      },
    },
    async (req, reply) => {
      const actor = ctx.actor(req);
      const { name, type, ...p } = req.query;
      await domainOf(actor, req.params.id);
      const rows = await page(req, reply, p, (pg) =>
        services.records.list(actor, req.params.id, { ...pg, ...(type ? { type } : {}), ...(name === undefined ? {} : { name: name === '@' ? '' : name }) }),
      );
      return rows.map(v1Record);
    },
  );
  allowOnly(app, '/domains/:id/records', ['GET']);

  for (const t of RECORD_TYPES) typeRoutes(app, ctx, t, RECORD_SCHEMAS.get(t.type) as RecordSchemas, domainOf);
}

function typeRoutes(
  app: FastifyInstance,
  ctx: RouteContext,
  t: RecordType,
  s: RecordSchemas,
  domainOf: (actor: Actor, id: number) => Promise<{ id: number; domain: string }>,
): void {
  const { services } = ctx;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  /** The registry's rules on a proposed v1 body (for bodies that also broke the schema). */
  const rules = (body: Record<string, unknown>, rctx: RecordContext) => () => checkRecord(fromV1(t, body), rctx).list;
  const list = `/domains/:id/${t.type}`;
  const one = `${list}/:rid`;
  const tag = `${t.type} records`;
  const remote = (req: FastifyRequest) => ({ remoteAddr: req.ip });

  /** The record, when it is the caller's and of this type; reached through another type it is 404. */
  async function load(actor: Actor, domainId: number, rid: number): Promise<StoredRecord> {
    await domainOf(actor, domainId);
    const rec = await services.records.get(actor, domainId, rid);
    if (rec.type !== t.type) throw new NotFoundError('record');
    return rec;
  }

  r.get(
    list,
    {
      schema: {
        tags: [tag],
        summary: `List the ${t.type} records of a domain`,
        params: IdParams,
        querystring: TypeListQuery,
        response: { 200: success(Type.Array(s.record), `A page of ${t.type} records`, ['Link']), default: problemResponse },
      },
    },
    async (req, reply) => {
      const actor = ctx.actor(req);
      const { name, ...p } = req.query;
      await domainOf(actor, req.params.id);
      const rows = await page(req, reply, p, (pg) =>
        services.records.list(actor, req.params.id, { ...pg, type: t.type, ...(name === undefined ? {} : { name: name === '@' ? '' : name }) }),
      );
      return rows.map(v1Record);
    },
  );

  r.post(
    list,
    {
      schema: {
        tags: [tag],
        summary: `Create a ${t.type} record`,
        description: 'Answers 201 with the new record (the same body as its GET), its Location and ETag. 409 when it clashes with a CNAME or duplicates a record.',
        params: IdParams,
        body: s.create,
        response: { 201: success(s.record, 'The new record', ['Location', 'ETag']), default: problemResponse },
      },
      attachValidation: true,
    },
    async (req, reply) => {
      const actor = ctx.actor(req);
      const d = await domainOf(actor, req.params.id);
      const failure = bodyFailure(req);
      if (failure) rejectBody(failure, rules(failure.accepted, { zone: d.domain, ...remote(req) }), sameField, s.create.required ?? []);
      const created = await services.records.create(actor, d.id, fromV1(t, req.body as Record<string, unknown>), remote(req));
      const body = v1Record(created);
      return reply.code(201).header('location', `/v1/domains/${d.id}/${t.type}/${created.id}`).header('etag', etagOf(body)).send(body);
    },
  );

  r.get(
    one,
    {
      schema: {
        tags: [tag],
        summary: `Read a ${t.type} record`,
        description: `404 when the record is not a ${t.type} record. Carries an ETag for If-Match on later changes.`,
        params: RecordParams,
        response: { 200: success(s.record, 'The record', ['ETag']), default: problemResponse },
      },
    },
    async (req, reply) => {
      const body = v1Record(await load(ctx.actor(req), req.params.id, req.params.rid));
      return reply.header('etag', etagOf(body)).send(body);
    },
  );

  for (const method of ['PUT', 'PATCH'] as const) {
    const put = method === 'PUT';
    const bodySchema = put ? s.replace : s.patch;
    r.route({
      method,
      url: one,
      attachValidation: true,
      schema: {
        tags: [tag],
        summary: put ? `Replace a ${t.type} record` : `Change some fields of a ${t.type} record`,
        description: `${put ? 'Omitted optional fields are reset to their defaults. ' : ''}The type cannot change. With If-Match, answers 412 when the record changed since it was read.`,
        params: RecordParams,
        body: bodySchema,
        response: { 200: success(s.record, 'The record', ['ETag']), default: problemResponse },
      },
      handler: async (req, reply) => {
        const actor = ctx.actor(req);
        const d = await domainOf(actor, req.params.id);
        const failure = bodyFailure(req);
        if (failure) {
          const current = await load(actor, d.id, req.params.rid);
          const proposed = put ? failure.accepted : { ...toV1(current), ...failure.accepted };
          rejectBody(failure, rules(proposed, { zone: d.domain, ...remote(req) }), sameField, bodySchema.required ?? []);
        }
        const body = req.body as Record<string, unknown>;
        const updated = await services.records
          .update(
            actor,
            d.id,
            req.params.rid,
            // Runs inside the write transaction, so the If-Match check and the change are atomic.
            (current) => {
              if (current.type !== t.type) throw new NotFoundError('record');
              checkIfMatch(req, etagOf(v1Record(current)));
              return fromV1(t, put ? body : { ...toV1(current), ...body });
            },
            remote(req),
          );
        const out = v1Record(updated);
        return reply.header('etag', etagOf(out)).send(out);
      },
    });
  }

  r.delete(
    one,
    {
      schema: {
        tags: [tag],
        summary: `Delete a ${t.type} record`,
        description: 'Answers 204. With If-Match, 412 when the record changed since it was read.',
        params: RecordParams,
        response: { 204: Type.Null({ description: 'Deleted' }), default: problemResponse },
      },
    },
    async (req, reply) => {
      const actor = ctx.actor(req);
      const current = await load(actor, req.params.id, req.params.rid);
      await services.records.delete(actor, req.params.id, current.id, (now) => checkIfMatch(req, etagOf(v1Record(now))));
      return reply.code(204).send(null);
    },
  );

  allowOnly(app, list, ['GET', 'POST']);
  allowOnly(app, one, ['GET', 'PUT', 'PATCH', 'DELETE']);
}
