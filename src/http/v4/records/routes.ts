/**
 * /v4/domains/{domainId}/records: a domain's records of the types Linode's API v4 has (A, AAAA, NS, MX,
 * CNAME, TXT, SRV, PTR, CAA: those with a `v4` mapping in the registry), each mapped both ways by its type's
 * module, with Linode's defaults and rounding as interface A applies them. Records of other types (made
 * through interface B) are not shown here, as interface A does not show them.
 */
import type { FastifyRequest } from 'fastify';
import { NotFoundError, Problems } from '../../../model/errors.js';
import { recordType, V3_DEFAULTS, type RecordData, type RecordType, type StoredRecord, type V4Columns } from '../../../model/records/index.js';
import type { Timestamps } from '../../../model/timestamps.js';
import { mapFields, V4Failure } from '../errors.js';
import { ListQuery, listPage } from '../list.js';
import { Empty } from '../schemas.js';
import { idOf, timesOf, type V4Routes } from '../support.js';
import { DomainRecord, RecordCreate, RecordListParams, RecordPage, RecordParams, RecordUpdate, type RecordBody } from './schemas.js';

/** Linode's filterable record fields, and `id`. */
const FILTERABLE = new Set(['id', 'name', 'target', 'tag', 'type']);

/** v4's own field names; the core's other fields (a type's data: `address`, `mail_server`, ...) are v4's `target`. */
const V4_FIELDS = new Set(['name', 'type', 'priority', 'weight', 'port', 'service', 'protocol', 'tag']);
const recordField = (f: string): string => (f === 'ttl' ? 'ttl_sec' : V4_FIELDS.has(f) ? f : 'target');

type V4Type = RecordType & Required<Pick<RecordType, 'v4'>>;

/** The type of a stored record as v4 sees it: a record of a type v4 does not have is not there. */
function v4Type(r: RecordData): V4Type {
  const t = recordType(r.type);
  if (!t?.v4) throw new NotFoundError('record');
  return t as V4Type;
}

export function v4Record(r: StoredRecord, times: ReadonlyMap<number, Timestamps>) {
  const { ttl, ...shown } = v4Type(r).v4.toV4(r);
  return { id: r.id, type: r.type, ...shown, ttl_sec: ttl, ...timesOf(times, r.id) };
}

/** The body's fields laid over `base` (null and absent alike: not given). */
function overlay(body: RecordBody, base: V4Columns): V4Columns {
  const cols = { ...base };
  const { type: _t, ttl_sec: ttl, ...rest } = body;
  for (const [field, value] of Object.entries({ ...rest, ttl })) if (value !== null && value !== undefined) (cols as unknown as Record<string, unknown>)[field] = value;
  return cols;
}

/** A record's v4 fields as the columns an update lays the body over (null shown: ""). */
function columnsOf(r: StoredRecord): V4Columns {
  const f = v4Type(r).v4.toV4(r);
  return { ...f, service: f.service ?? '', protocol: f.protocol ?? '', tag: f.tag ?? '' };
}

/** The v4 columns as a canonical record of type `t` in `zone`, through the type's mapping. */
function adapt(t: V4Type, cols: V4Columns, zone: string, remoteAddr: string, previous?: RecordData): RecordData {
  const p = new Problems();
  const rec = t.v4.fromV4(cols, { zone, remoteAddr }, p, previous);
  p.throwIfAny();
  return rec;
}

export const recordRoutes: V4Routes = (ctx) => async (app) => {
  type One = FastifyRequest<{ Params: typeof RecordParams.static }>;
  const ids = (req: One) => ({ domainId: idOf(req.params.domainId, 'domain'), id: idOf(req.params.recordId, 'record') });
  const shown = async (req: FastifyRequest, domainId: number, r: StoredRecord) => v4Record(r, await ctx.services.records.times(ctx.actor(req), domainId));

  app.get<{ Params: typeof RecordListParams.static }>(
    '/domains/:domainId/records',
    { schema: { params: RecordListParams, querystring: ListQuery, response: { 200: RecordPage } } },
    async (req) => {
      const actor = ctx.actor(req);
      const domainId = idOf(req.params.domainId, 'domain');
      const [records, times] = await Promise.all([ctx.services.records.list(actor, domainId), ctx.services.records.times(actor, domainId)]);
      return listPage(req, records.filter((r) => recordType(r.type)?.v4).map((r) => v4Record(r, times)), FILTERABLE);
    },
  );

  app.post<{ Params: typeof RecordListParams.static; Body: typeof RecordCreate.static }>(
    '/domains/:domainId/records',
    { schema: { params: RecordListParams, body: RecordCreate, response: { 200: DomainRecord } } },
    async (req) => {
      const domainId = idOf(req.params.domainId, 'domain');
      const t = recordType(req.body.type) as V4Type;
      const cols = overlay(req.body, { ...V3_DEFAULTS, service: '' });
      const created = await ctx.services.records.create(ctx.actor(req), domainId, (zone) => adapt(t, cols, zone, req.ip)).catch(mapFields(recordField));
      return shown(req, domainId, created);
    },
  );

  app.get<{ Params: typeof RecordParams.static }>('/domains/:domainId/records/:recordId', { schema: { params: RecordParams, response: { 200: DomainRecord } } }, async (req) => {
    const { domainId, id } = ids(req);
    return shown(req, domainId, await ctx.services.records.get(ctx.actor(req), domainId, id));
  });

  app.put<{ Params: typeof RecordParams.static; Body: typeof RecordUpdate.static }>(
    '/domains/:domainId/records/:recordId',
    { schema: { params: RecordParams, body: RecordUpdate, response: { 200: DomainRecord } } },
    async (req) => {
      const { domainId, id } = ids(req);
      const body = req.body ?? {};
      const updated = await ctx.services.records
        .update(ctx.actor(req), domainId, id, (current, zone) => {
          const t = v4Type(current);
          if (body.type != null && body.type !== current.type) throw V4Failure.of(400, `A record's type cannot be changed (this one is ${current.type}).`, 'type');
          return adapt(t, overlay(body, columnsOf(current)), zone, req.ip, current);
        })
        .catch(mapFields(recordField));
      return shown(req, domainId, updated);
    },
  );

  app.delete<{ Params: typeof RecordParams.static }>('/domains/:domainId/records/:recordId', { schema: { params: RecordParams, response: { 200: Empty } } }, async (req) => {
    const { domainId, id } = ids(req);
    await ctx.services.records.delete(ctx.actor(req), domainId, id, (current) => void v4Type(current));
    return {};
  });
};
