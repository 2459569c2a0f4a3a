/** /v1/domains and /v1/zonemirrors: master and slave zones, both DomainService domains of one kind. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static, type TObject } from '@sinclair/typebox';
import { checkDomain, DOMAIN_DEFAULTS, type DomainData, type DomainKind, type StoredDomain } from '../../../model/domain.js';
import { NotFoundError } from '../../../model/errors.js';
import { normalizeZoneName } from '../../../model/names.js';
import type { DomainFilter } from '../../../services/domains.js';
import type { Actor } from '../../../services/index.js';
import type { Precondition } from '../../../services/zone-writer.js';
import type { PreconditionReads } from '../../../services/zone-writer.js';
import { shownList } from '../../shown-lists.js';
import { bodyFailure, mapFields, rejectBody } from '../problem.js';
import { IdParams, problemResponse, success } from '../shared-schemas.js';
import { checkIfMatch, collectionRoutes, etagOf, page, pageOf, typed, type ResourceRoutes, type RouteContext } from '../support.js';
import { domainFieldMap, domainInput, v1Domain, v1Mirror, type DomainBody } from './representation.js';
import { Domain, DomainCreate, DomainPatch, DomainReplace, Mirror, MirrorCreate, MirrorPatch, MirrorReplace, NameQuery } from './schemas.js';

/** What the routes of one kind of zone share: masters under /domains, slaves under /zonemirrors. */
interface ZoneKit {
  ctx: RouteContext;
  kind: DomainKind;
  master: boolean;
  base: string;
  one: string;
  tag: string;
  what: string;
  /** The schema of one zone of this kind, as shown. */
  shape: TObject;
  /** The caller's zone of this kind; any other id (another kind, another account, none) is 404. */
  load(actor: Actor, id: number): Promise<StoredDomain>;
  /** `d` was read for the caller, so ownership is already established; `ops`: the transaction it was read in. */
  show(d: StoredDomain, ops?: PreconditionReads): Promise<Static<typeof Domain> | Static<typeof Mirror>>;
  /** If-Match, checked inside the write on the domain as it is then. */
  ifMatch(req: FastifyRequest): Precondition<StoredDomain>;
}

const mapErrors = mapFields(domainFieldMap);

/** What the core will check for a body: the current domain (or the defaults) with the body's fields laid over it. */
function proposed(kind: DomainKind, body: DomainBody, reset: boolean, current?: StoredDomain): DomainData {
  return { ...(current ?? { ...DOMAIN_DEFAULTS, domain: '', kind }), ...domainInput(body, reset, current) };
}

function zoneKit(ctx: RouteContext, kind: DomainKind): ZoneKit {
  const { services } = ctx;
  const master = kind === 'master';
  const base = master ? '/domains' : '/zonemirrors';
  const show = async (d: StoredDomain, ops?: PreconditionReads) => (master ? v1Domain(d) : v1Mirror(d, await services.mirrors.stateOf(d.id, ops)));
  return {
    ctx,
    kind,
    master,
    base,
    one: `${base}/:id`,
    tag: master ? 'domains' : 'zonemirrors',
    what: master ? 'domain' : 'zone mirror',
    shape: master ? Domain : Mirror,
    async load(actor, id) {
      const d = await services.domains.get(actor, id);
      if (d.kind !== kind) throw new NotFoundError(master ? 'domain' : 'mirror');
      return d;
    },
    show,
    ifMatch: (req) => async (current, tx) => checkIfMatch(req, etagOf(await show(current, tx))),
  };
}

function zoneRoutes(app: FastifyInstance, k: ZoneKit): void {
  collectionRoutes(app, { list: k.base, one: k.one }, k, { list: listZones, create: createZone, read: readZone, change: changeZone, remove: deleteZone });
}

export const domainRoutes: ResourceRoutes = (ctx) => async (app) => zoneRoutes(app, zoneKit(ctx, 'master'));
export const mirrorRoutes: ResourceRoutes = (ctx) => async (app) => zoneRoutes(app, zoneKit(ctx, 'slave'));

const v1Domains = (list: readonly StoredDomain[]) => list.map(v1Domain);

function listZones(app: FastifyInstance, { ctx, kind, master, base, tag, what, shape, show }: ZoneKit): void {
  const filterOf = ({ name, ...p }: Static<typeof NameQuery>): DomainFilter => ({ ...pageOf(p), kind, ...(name === undefined ? {} : { name: normalizeZoneName(name) }) });
  typed(app).get(
    base,
    {
      schema: {
        tags: [tag],
        summary: `List ${what}s`,
        description: `The caller's ${what}s, ordered by id, one page at a time.`,
        querystring: NameQuery,
        response: { 200: success(Type.Array(shape), `A page of ${what}s`, ['Link']), default: problemResponse },
      },
      config: { listsDomains: filterOf },
    },
    async (req, reply) => {
      const rows = await page(req, reply, req.query, () => ctx.listDomains(req, filterOf(req.query)));
      // One handler serves both kinds; the schema of the kind at hand checks the shape. A master's shape is
      // its row's alone, so a list handed out again is shown (and written) once; a mirror's has its transfers'.
      return (master ? shownList(rows, v1Domains) : await Promise.all(rows.map((d) => show(d)))) as never;
    },
  );
}

function createZone(app: FastifyInstance, { ctx, kind, master, base, tag, what, shape, show }: ZoneKit): void {
  const createSchema = master ? DomainCreate : MirrorCreate;
  typed(app).post(
    base,
    {
      schema: {
        tags: [tag],
        summary: `Create a ${what}`,
        description: 'Answers 201 with the new resource (the same body as its GET), its Location and ETag. 409 when the name is taken.',
        body: createSchema,
        response: { 201: success(shape, `The new ${what}`, ['Location', 'ETag']), default: problemResponse },
      },
      attachValidation: true,
    },
    async (req, reply) => {
      const actor = ctx.actor(req);
      const failure = bodyFailure(req);
      if (failure) rejectBody(failure, () => checkDomain(proposed(kind, failure.accepted, true)).list, domainFieldMap, createSchema.required ?? []);
      const input = domainInput(req.body as DomainBody, true);
      const d = await ctx.services.domains.create(actor, { ...input, domain: input.domain ?? '', kind }).catch(mapErrors);
      const body = await show(d);
      return reply.code(201).header('location', `/v1${base}/${d.id}`).header('etag', etagOf(body)).send(body);
    },
  );
}

function readZone(app: FastifyInstance, { ctx, one, tag, what, shape, load, show }: ZoneKit): void {
  typed(app).get(
    one,
    {
      schema: {
        tags: [tag],
        summary: `Read a ${what}`,
        description: 'Carries an ETag for If-Match on later changes.',
        params: IdParams,
        response: { 200: success(shape, `The ${what}`, ['ETag']), default: problemResponse },
      },
    },
    async (req, reply) => {
      const body = await show(await load(ctx.actor(req), req.params.id));
      return reply.header('etag', etagOf(body)).send(body);
    },
  );
}

/** PUT replaces the zone's settings (omitted optional fields take their defaults), PATCH changes the fields given. */
function changeZone(app: FastifyInstance, { ctx, kind, master, one, tag, what, shape, load, show, ifMatch }: ZoneKit, method: 'PUT' | 'PATCH'): void {
  const put = method === 'PUT';
  const bodySchema = master ? (put ? DomainReplace : DomainPatch) : put ? MirrorReplace : MirrorPatch;
  typed(app).route({
    method,
    url: one,
    attachValidation: true,
    schema: {
      tags: [tag],
      summary: put ? `Replace a ${what}` : `Change some fields of a ${what}`,
      description: `${put ? 'Omitted optional fields are reset to their defaults. ' : ''}With If-Match, answers 412 when the ${what} changed since it was read.`,
      params: IdParams,
      body: bodySchema,
      response: { 200: success(shape, `The ${what}`, ['ETag']), default: problemResponse },
    },
    handler: async (req, reply) => {
      const actor = ctx.actor(req);
      const current = await load(actor, req.params.id);
      const failure = bodyFailure(req);
      if (failure) rejectBody(failure, () => checkDomain(proposed(kind, failure.accepted, put, current)).list, domainFieldMap, bodySchema.required ?? []);
      // The fields are laid over the domain as read here; If-Match (checked in the write) guards that it has not changed since.
      const d = await ctx.services.domains.update(actor, current.id, domainInput(req.body as DomainBody, put, current), ifMatch(req)).catch(mapErrors);
      const body = await show(d);
      return reply.header('etag', etagOf(body)).send(body);
    },
  });
}

function deleteZone(app: FastifyInstance, { ctx, master, one, tag, what, load, ifMatch }: ZoneKit): void {
  typed(app).delete(
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
      await ctx.services.domains.delete(actor, current.id, ifMatch(req));
      return reply.code(204).send(null);
    },
  );
}
