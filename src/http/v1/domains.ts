/** /v1/domains and /v1/zonemirrors: master and slave zones, both DomainService domains of one kind. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import { checkDomain, DOMAIN_DEFAULTS, statusFromName, statusName, type DomainData, type DomainKind, type StatusName, type StoredDomain } from '../../model/domain.js';
import { NotFoundError } from '../../model/errors.js';
import { normalizeZoneName } from '../../model/names.js';
import type { Actor } from '../../services/index.js';
import type { Precondition } from '../../services/zone-writer.js';
import type { TransferState } from '../../services/mirrors.js';
import type { StoreOps } from '../../store/store.js';
import { bodyFailure, mapFields, rejectBody, type FieldMap } from './problem.js';
import {
  Domain,
  DomainCreate,
  DomainPatch,
  DomainReplace,
  IdParams,
  Mirror,
  MirrorCreate,
  MirrorPatch,
  MirrorReplace,
  NameQuery,
  problemResponse,
  success,
} from './schemas.js';
import { allowOnly, checkIfMatch, etagOf, isoTime, page, type RouteContext } from './support.js';

type DomainBody = Static<typeof DomainPatch> & Static<typeof MirrorPatch>;

/** Interface B's field names for the core's domain fields (for error entries). */
const FIELD_NAMES: Record<string, string> = { soaEmail: 'soa', ttl: 'default_ttl', axfrIps: 'axfr', masterIps: 'masters', masterTsig: 'tsig' };
/** The first part of a dotted path is renamed (masterTsig.secret is tsig.secret). */
export const domainFieldMap: FieldMap = (f) => f.replace(/^[^.]+/, (head) => FIELD_NAMES[head] ?? head);

export function v1Domain(d: StoredDomain): Static<typeof Domain> {
  return { id: d.id, domain: d.domain, soa: d.soaEmail, default_ttl: d.ttl, status: statusName(d.status), axfr: d.axfrIps };
}

export function v1Mirror(d: StoredDomain, t: TransferState): Static<typeof Mirror> {
  return {
    id: d.id,
    domain: d.domain,
    masters: d.masterIps,
    status: statusName(d.status),
    axfr: d.axfrIps,
    // The secret is write-only.
    tsig: d.masterTsig && { name: `${d.masterTsig.name}.`, algorithm: d.masterTsig.algorithm },
    transfer: { serial: t.serial, last_success: isoTime(t.lastSuccess), last_attempt: isoTime(t.lastAttempt), last_error: t.lastError },
  };
}

/**
 * The core fields set by a v1 body. `reset` (create, PUT) gives omitted optional fields their defaults.
 * A status name equal to the current one keeps the current status (edit mode stays edit mode).
 */
function domainInput(body: DomainBody, reset: boolean, current?: StoredDomain): Partial<DomainData> {
  const out: Partial<DomainData> = {};
  if (body.domain !== undefined) out.domain = body.domain;
  if (body.soa !== undefined) out.soaEmail = body.soa;
  if (body.masters !== undefined) out.masterIps = body.masters;
  if (body.default_ttl !== undefined || reset) out.ttl = body.default_ttl ?? 0;
  if (body.axfr !== undefined || reset) out.axfrIps = body.axfr === undefined || body.axfr === '' ? [] : body.axfr;
  if (body.tsig !== undefined || reset) out.masterTsig = body.tsig ?? null;
  const status: StatusName | undefined = body.status ?? (reset ? 'active' : undefined);
  if (status !== undefined) out.status = current && statusName(current.status) === status ? current.status : statusFromName(status);
  return out;
}

/** The routes of one kind of zone: masters under /domains, slaves under /zonemirrors. */
function zoneRoutes(app: FastifyInstance, ctx: RouteContext, kind: DomainKind): void {
  const { services } = ctx;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const master = kind === 'master';
  const base = master ? '/domains' : '/zonemirrors';
  const tag = master ? 'domains' : 'zonemirrors';
  const what = master ? 'domain' : 'zone mirror';
  const mapErrors = mapFields(domainFieldMap);

  /** The caller's zone of this kind; any other id (another kind, another account, none) is 404. */
  async function load(actor: Actor, id: number): Promise<StoredDomain> {
    const d = await services.domains.get(actor, id);
    if (d.kind !== kind) throw new NotFoundError(master ? 'domain' : 'mirror');
    return d;
  }
  /** What the core will check for a body: the current domain (or the defaults) with the body's fields laid over it. */
  function proposed(body: DomainBody, reset: boolean, current?: StoredDomain): DomainData {
    return { ...(current ?? { ...DOMAIN_DEFAULTS, domain: '', kind }), ...domainInput(body, reset, current) };
  }
  const createSchema = master ? DomainCreate : MirrorCreate;

  /** `d` was read for the caller, so ownership is already established; `ops`: the transaction it was read in. */
  async function show(d: StoredDomain, ops?: StoreOps) {
    return master ? v1Domain(d) : v1Mirror(d, await services.mirrors.stateOf(d.id, ops));
  }
  /** If-Match, checked inside the write on the domain as it is then. */
  const ifMatch =
    (req: FastifyRequest): Precondition<StoredDomain> =>
    async (current, tx) =>
      checkIfMatch(req, etagOf(await show(current, tx)));

  r.get(
    base,
    {
      schema: {
        tags: [tag],
        summary: `List ${what}s`,
        description: `The caller's ${what}s, ordered by id, one page at a time.`,
        querystring: NameQuery,
        response: { 200: success(master ? Type.Array(Domain) : Type.Array(Mirror), `A page of ${what}s`, ['Link']), default: problemResponse },
      },
    },
    async (req, reply) => {
      const actor = ctx.actor(req);
      const { name, ...p } = req.query;
      const rows = await page(req, reply, p, (pg) =>
        services.domains.list(actor, { ...pg, kind, ...(name === undefined ? {} : { name: normalizeZoneName(name) }) }),
      );
      // One handler serves both kinds; the schema of the kind at hand checks the shape.
      return (await Promise.all(rows.map((d) => show(d)))) as never;
    },
  );

  r.post(
    base,
    {
      schema: {
        tags: [tag],
        summary: `Create a ${what}`,
        description: 'Answers 201 with the new resource (the same body as its GET), its Location and ETag. 409 when the name is taken.',
        body: createSchema,
        response: { 201: success(master ? Domain : Mirror, `The new ${what}`, ['Location', 'ETag']), default: problemResponse },
      },
      attachValidation: true,
    },
    async (req, reply) => {
      const actor = ctx.actor(req);
      const failure = bodyFailure(req);
      if (failure) rejectBody(failure, () => checkDomain(proposed(failure.accepted, true)).list, domainFieldMap, createSchema.required ?? []);
      const input = domainInput(req.body as DomainBody, true);
      const d = await services.domains.create(actor, { ...input, domain: input.domain ?? '', kind }).catch(mapErrors);
      const body = await show(d);
      return reply.code(201).header('location', `/v1${base}/${d.id}`).header('etag', etagOf(body)).send(body);
    },
  );

  const one = `${base}/:id`;
  r.get(
    one,
    {
      schema: {
        tags: [tag],
        summary: `Read a ${what}`,
        description: 'Carries an ETag for If-Match on later changes.',
        params: IdParams,
        response: { 200: success(master ? Domain : Mirror, `The ${what}`, ['ETag']), default: problemResponse },
      },
    },
    async (req, reply) => {
      const actor = ctx.actor(req);
      const body = await show(await load(actor, req.params.id));
      return reply.header('etag', etagOf(body)).send(body);
    },
  );

  for (const method of ['PUT', 'PATCH'] as const) {
    const put = method === 'PUT';
    const bodySchema = master ? (put ? DomainReplace : DomainPatch) : put ? MirrorReplace : MirrorPatch;
    r.route({
      method,
      url: one,
      attachValidation: true,
      schema: {
        tags: [tag],
        summary: put ? `Replace a ${what}` : `Change some fields of a ${what}`,
        description: `${put ? 'Omitted optional fields are reset to their defaults. ' : ''}With If-Match, answers 412 when the ${what} changed since it was read.`,
        params: IdParams,
        body: bodySchema,
        response: { 200: success(master ? Domain : Mirror, `The ${what}`, ['ETag']), default: problemResponse },
      },
      handler: async (req, reply) => {
        const actor = ctx.actor(req);
        const current = await load(actor, req.params.id);
        const failure = bodyFailure(req);
        if (failure) rejectBody(failure, () => checkDomain(proposed(failure.accepted, put, current)).list, domainFieldMap, bodySchema.required ?? []);
        // The fields are laid over the domain as read here; If-Match (checked in the write) guards that it has not changed since.
        const d = await services.domains.update(actor, current.id, domainInput(req.body as DomainBody, put, current), ifMatch(req)).catch(mapErrors);
        const body = await show(d);
        return reply.header('etag', etagOf(body)).send(body);
      },
    });
  }

  r.delete(
    one,
    {
      schema: {
        tags: [tag],
        summary: `Delete a ${what}`,
        description: `Deletes the ${what}${master ? ' and all of its records' : ''}; answers 204. With If-Match, 412 when it changed since it was read.`,
        params: IdParams,
        response: { 204: Type.Null({ description: 'Deleted' }), default: problemResponse },
      },
    },
    async (req, reply) => {
      const actor = ctx.actor(req);
      const current = await load(actor, req.params.id);
      await services.domains.delete(actor, current.id, ifMatch(req));
      return reply.code(204).send(null);
    },
  );

  allowOnly(app, base, ['GET', 'POST']);
  allowOnly(app, one, ['GET', 'PUT', 'PATCH', 'DELETE']);
}

export function domainRoutes(app: FastifyInstance, ctx: RouteContext): void {
  zoneRoutes(app, ctx, 'master');
}

export function mirrorRoutes(app: FastifyInstance, ctx: RouteContext): void {
  zoneRoutes(app, ctx, 'slave');
}
