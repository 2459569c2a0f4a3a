/**
 * /v1/domains/{id}/records and /v1/domains/{id}/{TYPE}[/{rid}] for every type of the registry. A type's
 * schemas and its mapping to the canonical record come from its module (v1Fields, fromV1, toV1).
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { NotFoundError } from '../../../model/errors.js';
import { checkRecord, fromV1, RECORD_TYPES, toV1, type RecordContext, type RecordType, type StoredRecord } from '../../../model/records/index.js';
import type { Actor } from '../../../services/index.js';
import { bodyFailure, rejectBody, type FieldMap } from '../problem.js';
import { IdParams, problemResponse, success } from '../shared-schemas.js';
import { allowOnly, checkIfMatch, collectionRoutes, etagOf, page, typed, type ResourceRoutes, type RouteContext } from '../support.js';
import { AnyRecord, RecordListQuery, RecordParams, RECORD_SCHEMAS, TypeListQuery, type RecordSchemas } from './schemas.js';

/** A record as interface B shows it: id, type and the type's own fields. */
export function v1Record(r: StoredRecord): Record<string, unknown> {
  // Object.assign rather than a spread: several times faster on lists of thousands (a bulk change's answer).
  return Object.assign({ id: r.id, type: r.type }, toV1(r));
}

/** Problems are named by the registry's fields, which are interface B's: nothing to translate. */
const sameField: FieldMap = (field) => field;
const remote = (req: FastifyRequest) => ({ remoteAddr: req.ip });
/** The `name` filter of a list: "@" is the apex, stored as "". */
const nameFilter = (name: string | undefined) => (name === undefined ? {} : { name: name === '@' ? '' : name });

type DomainOf = (actor: Actor, id: number) => Promise<{ id: number; domain: string }>;

/** What the routes of one record type share: its schemas, paths and loaders. */
interface TypeKit {
  ctx: RouteContext;
  t: RecordType;
  s: RecordSchemas;
  list: string;
  one: string;
  tag: string;
  domainOf: DomainOf;
  /** The record, when it is the caller's and of this type; reached through another type it is 404. */
  load(actor: Actor, domainId: number, rid: number): Promise<StoredRecord>;
  /** The registry's rules on a proposed v1 body (for bodies that also broke the schema). */
  rules(body: Record<string, unknown>, rctx: RecordContext): () => ReturnType<typeof checkRecord>['list'];
}

export const recordRoutes: ResourceRoutes = (ctx) => async (app) => {
  const { services } = ctx;
  /** The caller's domain (a master zone; zone mirrors have no editable records here). */
  const domainOf: DomainOf = async (actor, id) => {
    const d = await services.domains.get(actor, id);
    if (d.kind !== 'master') throw new NotFoundError('domain');
    return d;
  };
  listAllRecords(app, ctx, domainOf);
  for (const t of RECORD_TYPES) typeRoutes(app, typeKit(ctx, t, domainOf));
};

function listAllRecords(app: FastifyInstance, ctx: RouteContext, domainOf: DomainOf): void {
  typed(app).get(
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
      const rows = await page(req, reply, p, (pg) => ctx.services.records.list(actor, req.params.id, { ...pg, ...(type ? { type } : {}), ...nameFilter(name) }));
      return rows.map(v1Record);
    },
  );
  allowOnly(app, '/domains/:id/records', ['GET']);
}

function typeKit(ctx: RouteContext, t: RecordType, domainOf: DomainOf): TypeKit {
  const list = `/domains/:id/${t.type}`;
  return {
    ctx,
    t,
    s: RECORD_SCHEMAS.get(t.type) as RecordSchemas,
    list,
    one: `${list}/:rid`,
    tag: `${t.type} records`,
    domainOf,
    async load(actor, domainId, rid) {
      await domainOf(actor, domainId);
      const rec = await ctx.services.records.get(actor, domainId, rid);
      if (rec.type !== t.type) throw new NotFoundError('record');
      return rec;
    },
    rules: (body, rctx) => () => checkRecord(fromV1(t, body), rctx).list,
  };
}

function typeRoutes(app: FastifyInstance, k: TypeKit): void {
  collectionRoutes(app, k, k, { list: listOfType, create: createOfType, read: readOfType, change: changeOfType, remove: deleteOfType });
}

function listOfType(app: FastifyInstance, { ctx, t, s, list, tag, domainOf }: TypeKit): void {
  typed(app).get(
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
      const rows = await page(req, reply, p, (pg) => ctx.services.records.list(actor, req.params.id, { ...pg, type: t.type, ...nameFilter(name) }));
      return rows.map(v1Record);
    },
  );
}

function createOfType(app: FastifyInstance, { ctx, t, s, list, tag, domainOf, rules }: TypeKit): void {
  typed(app).post(
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
      const created = await ctx.services.records.create(actor, d.id, fromV1(t, req.body as Record<string, unknown>), remote(req));
      const body = v1Record(created);
      return reply.code(201).header('location', `/v1/domains/${d.id}/${t.type}/${created.id}`).header('etag', etagOf(body)).send(body);
    },
  );
}

function readOfType(app: FastifyInstance, { ctx, t, s, one, tag, load }: TypeKit): void {
  typed(app).get(
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
}

/** PUT replaces the record (omitted optional fields take their defaults), PATCH lays the body over it. */
function changeOfType(app: FastifyInstance, { ctx, t, s, one, tag, domainOf, load, rules }: TypeKit, method: 'PUT' | 'PATCH'): void {
  const put = method === 'PUT';
  const bodySchema = put ? s.replace : s.patch;
  typed(app).route({
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
      const updated = await ctx.services.records.update(
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

function deleteOfType(app: FastifyInstance, { ctx, t, one, tag, load }: TypeKit): void {
  typed(app).delete(
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
      await ctx.services.records.delete(actor, req.params.id, current.id, (now) => checkIfMatch(req, etagOf(v1Record(now))));
      return reply.code(204).send(null);
    },
  );
}
