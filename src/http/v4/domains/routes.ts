/**
 * /v4/domains: domains (master zones) and zone mirrors (`type` slave) as Linode's API v4 shows them, with
 * the same ids as interfaces A and B; their zone file; a new domain cloned from one or imported by AXFR.
 */
import type { FastifyRequest } from 'fastify';
import { statusFromV4Name, v4StatusName, type DomainData, type StoredDomain } from '../../../model/domain.js';
import type { Timestamps } from '../../../model/timestamps.js';
import { ZoneFileError } from '../../../model/zonefile.js';
import { DestinationRefusedError } from '../../../services/import-destinations.js';
import { ZoneTransferError } from '../../../services/zonefiles.js';
import { mapFields, V4Failure } from '../errors.js';
import { ListQuery, listPage } from '../list.js';
import { Empty } from '../schemas.js';
import { idOf, timesOf, type V4Routes } from '../support.js';
import { Domain, DomainClone, DomainCreate, DomainImport, DomainPage, DomainParams, DomainUpdate, ZoneFile, type DomainBody } from './schemas.js';

/** Linode's filterable domain fields, and `id`. */
const FILTERABLE = new Set(['id', 'domain', 'type', 'status', 'group', 'tags']);

/** The core's domain fields as v4 names them. */
const FIELDS: Record<string, string> = {
  kind: 'type',
  soaEmail: 'soa_email',
  displayGroup: 'group',
  masterIps: 'master_ips',
  axfrIps: 'axfr_ips',
  ttl: 'ttl_sec',
  refresh: 'refresh_sec',
  retry: 'retry_sec',
  expire: 'expire_sec',
};
const domainField = (f: string): string => FIELDS[f] ?? f;

/** At most this many problems of an imported zone are listed (the first ones). */
const MAX_IMPORT_PROBLEMS = 20;

export function v4Domain(d: StoredDomain, times: ReadonlyMap<number, Timestamps>) {
  return {
    id: d.id,
    domain: d.domain,
    type: d.kind,
    status: v4StatusName(d.status),
    soa_email: d.soaEmail,
    description: d.description,
    group: d.displayGroup,
    tags: d.tags,
    ttl_sec: d.ttl,
    refresh_sec: d.refresh,
    retry_sec: d.retry,
    expire_sec: d.expire,
    master_ips: d.masterIps,
    axfr_ips: d.axfrIps,
    ...timesOf(times, d.id),
  };
}

/** The domain fields a body gives (null and absent alike: not given). */
function domainFields(body: DomainBody): Partial<DomainData> {
  const out: Partial<DomainData> = {};
  const set = <K extends keyof DomainData>(key: K, value: DomainData[K] | null | undefined) => {
    if (value !== null && value !== undefined) out[key] = value;
  };
  set('domain', body.domain);
  set('kind', body.type);
  set('soaEmail', body.soa_email);
  set('description', body.description);
  set('displayGroup', body.group);
  set('status', body.status == null ? null : statusFromV4Name(body.status));
  set('ttl', body.ttl_sec);
  set('refresh', body.refresh_sec);
  set('retry', body.retry_sec);
  set('expire', body.expire_sec);
  set('masterIps', body.master_ips);
  set('axfrIps', body.axfr_ips);
  set('tags', body.tags);
  return out;
}

/** A zone the import could not take, in the door's terms: 400, naming `remote_nameserver`. */
function importFailure(e: unknown): unknown {
  if (e instanceof ZoneTransferError || e instanceof DestinationRefusedError) return V4Failure.of(400, e.message, 'remote_nameserver');
  if (e instanceof ZoneFileError) {
    return new V4Failure(
      400,
      e.problems.slice(0, MAX_IMPORT_PROBLEMS).map((p) => ({ reason: `The zone has a record this service does not take: ${p.message}`, field: 'remote_nameserver' })),
    );
  }
  return e;
}

export const domainRoutes: V4Routes = (ctx) => async (app) => {
  const shown = async (req: FastifyRequest, d: StoredDomain) => v4Domain(d, await ctx.services.domains.times(ctx.actor(req)));
  const get = (req: FastifyRequest<{ Params: { domainId: string } }>) => ctx.services.domains.get(ctx.actor(req), idOf(req.params.domainId, 'domain'));

  app.get('/domains', { schema: { querystring: ListQuery, response: { 200: DomainPage } } }, async (req) => {
    const actor = ctx.actor(req);
    const [domains, times] = await Promise.all([ctx.services.domains.list(actor), ctx.services.domains.times(actor)]);
    return listPage(req, domains.map((d) => v4Domain(d, times)), FILTERABLE);
  });

  app.post<{ Body: typeof DomainCreate.static }>('/domains', { schema: { body: DomainCreate, response: { 200: Domain } } }, async (req) => {
    const fields = domainFields(req.body);
    const d = await ctx.services.domains.create(ctx.actor(req), { ...fields, domain: req.body.domain, kind: req.body.type }).catch(mapFields(domainField));
    return shown(req, d);
  });

  app.get<{ Params: typeof DomainParams.static }>('/domains/:domainId', { schema: { params: DomainParams, response: { 200: Domain } } }, async (req) => shown(req, await get(req)));

  app.put<{ Params: typeof DomainParams.static; Body: typeof DomainUpdate.static }>(
    '/domains/:domainId',
    { schema: { params: DomainParams, body: DomainUpdate, response: { 200: Domain } } },
    async (req) => {
      const id = idOf(req.params.domainId, 'domain');
      const d = await ctx.services.domains.update(ctx.actor(req), id, domainFields(req.body ?? {})).catch(mapFields(domainField));
      return shown(req, d);
    },
  );

  app.delete<{ Params: typeof DomainParams.static }>('/domains/:domainId', { schema: { params: DomainParams, response: { 200: Empty } } }, async (req) => {
    await ctx.services.domains.delete(ctx.actor(req), idOf(req.params.domainId, 'domain'));
    return {};
  });

  app.get<{ Params: typeof DomainParams.static }>('/domains/:domainId/zone-file', { schema: { params: DomainParams, response: { 200: ZoneFile } } }, async (req) => {
    const text = await ctx.services.zonefiles.export(ctx.actor(req), idOf(req.params.domainId, 'domain')).catch(mapFields(domainField));
    return { zone_file: text.split('\n').filter((line, i, all) => line !== '' || i < all.length - 1) };
  });

  app.post<{ Body: typeof DomainImport.static }>('/domains/import', { schema: { body: DomainImport, response: { 200: Domain } } }, async (req) => {
    const { domain, remote_nameserver: server } = req.body;
    // The SOA's e-mail comes with the zone; this one only stands in until the transfer gives it.
    const d = await ctx.services.copies
      .importZone(ctx.actor(req), domain, `hostmaster@${domain.toLowerCase().replace(/\.$/, '')}`, { server })
      .catch((e: unknown) => mapFields(domainField)(importFailure(e)));
    return shown(req, d);
  });

  app.post<{ Params: typeof DomainParams.static; Body: typeof DomainClone.static }>(
    '/domains/:domainId/clone',
    { schema: { params: DomainParams, body: DomainClone, response: { 200: Domain } } },
    async (req) => {
      const d = await ctx.services.copies.clone(ctx.actor(req), idOf(req.params.domainId, 'domain'), req.body.domain).catch(mapFields(domainField));
      return shown(req, d);
    },
  );
};
