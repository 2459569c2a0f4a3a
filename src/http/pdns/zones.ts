/**
 * /api/v1/servers/localhost/zones: the zone list (`?zone=`), a new zone, and one zone's GET, PUT (its settings),
 * PATCH (its RRsets, all or none), DELETE, notify, export and rectify, each onto the services as interfaces A and
 * B use them.
 */
import type { Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { PrimaryKind, StoredDomain } from '../../model/domain.js';
import { ConflictError } from '../../model/errors.js';
import { emailOfRname, SOA_TYPE, type Soa } from '../../model/records/index.js';
import { zoneFile } from '../../model/zonefile.js';
import type { Actor } from '../../services/index.js';
import { contentOf, factsOf, typed, zoneById, type PdnsContext } from './context.js';
import { PdnsError, unprocessable } from './errors.js';
import { absoluteOf, canonical, zoneNameOfId } from './names.js';
import { serverPath, zoneObject, zoneSummary } from './representation.js';
import { changeItems, checkRrsets, type RrsetBody, type RrsetChange } from './rrsets.js';
import { CreateZoneBody, PatchBody, UpdateZoneBody, ZoneParams, ZoneQuery, ZonesQuery } from './schemas.js';

/** A zone with every record a domain may hold fits (interface B's zone-file PUT takes as much). */
const ZONE_BODY_LIMIT = 10 * 1024 * 1024;
const ZONES = serverPath('/zones');
const ZONE = serverPath('/zones/:zone_id');

export function zoneRoutes(ctx: PdnsContext) {
  return async (app: FastifyInstance) => {
    listZones(app, ctx);
    createZone(app, ctx);
    getZone(app, ctx);
    patchZone(app, ctx);
    putZone(app, ctx);
    deleteZone(app, ctx);
    zoneActions(app, ctx);
  };
}

function listZones(app: FastifyInstance, ctx: PdnsContext): void {
  typed(app).get(ZONES, { schema: { querystring: ZonesQuery } }, async (req) => {
    const actor = ctx.actor(req);
    const name = req.query.zone === undefined ? undefined : zoneNameOfId(req.query.zone);
    if (name === null) return [];
    const filter = name === undefined ? {} : { name };
    // Every zone's DNSSEC read with the list itself, none when the client asks for none (`dnssec=false`, as PowerDNS).
    const zones = req.query.dnssec === 'false' ? (await ctx.services.domains.list(actor, filter)).map((domain) => ({ domain, dnssec: 'off' })) : await ctx.services.domains.listWithDnssec(actor, filter);
    const lastChecks = await Promise.all(zones.map(async ({ domain: d }) => (d.kind === 'slave' ? (await ctx.services.mirrors.state(actor, d.id)).lastSuccess : null)));
    return zones.map(({ domain, dnssec }, i) => zoneSummary(domain, { dnssec: dnssec !== 'off', lastCheck: lastChecks[i] ?? null }));
  });
}

async function zoneAnswer(ctx: PdnsContext, actor: Actor, d: StoredDomain, withRrsets = true) {
  const facts = await factsOf(ctx, actor, d);
  return zoneObject(d, facts, withRrsets ? await contentOf(ctx, actor, d) : null);
}

function getZone(app: FastifyInstance, ctx: PdnsContext): void {
  typed(app).get(ZONE, { schema: { params: ZoneParams, querystring: ZoneQuery } }, async (req) => {
    const actor = ctx.actor(req);
    const zone = await zoneAnswer(ctx, actor, await zoneById(ctx, actor, req.params.zone_id), req.query.rrsets !== 'false');
    if (req.query.rrsets === 'false') return { ...zone, rrsets: undefined };
    return zone;
  });
}

/** PowerDNS's zone kinds: Native and Master are our domains (the kind kept as declared), Slave a zone mirror. */
function kindsOf(kind: string): { kind: 'master'; primaryKind: PrimaryKind } | { kind: 'slave' } {
  const k = kind.toLowerCase();
  if (k === 'native' || k === 'master') return { kind: 'master', primaryKind: k };
  if (k === 'slave') return { kind: 'slave' };
  throw unprocessable(`ZoneKind '${kind}' is not supported (zonehost serves Native, Master and Slave zones)`);
}

/** The SOA a new zone's RRsets give, if any: its e-mail address and timers become the domain's settings. */
function soaSettings(changes: readonly RrsetChange[]) {
  const soa = changes.find((c) => c.type === SOA_TYPE.type)?.records?.[0]?.data as Soa | undefined;
  return soa ? { soaEmail: emailOfRname(soa.rname), refresh: soa.refresh, retry: soa.retry, expire: soa.expire } : {};
}

/** A new zone's RRsets: those given (the SOA taken apart) and an apex NS RRset of its `nameservers`. */
function newZoneRrsets(body: Static<typeof CreateZoneBody>, zone: string): RrsetChange[] {
  const rrsets: RrsetBody[] = [...(body.rrsets ?? [])];
  const ns = body.nameservers ?? [];
  if (ns.length > 0) {
    const apex = canonical(zone);
    if (rrsets.some((r) => r.type.toUpperCase() === 'NS' && r.name.toLowerCase() === apex)) throw unprocessable('Nameservers list MUST NOT be mixed with zone-level NS in rrsets');
    rrsets.push({ name: apex, type: 'NS', ttl: 0, records: ns.map((host) => ({ content: canonical(absoluteOf(host)) })) });
  }
  return checkRrsets(rrsets, zone, false);
}

/** The domain, made; a name taken (by anyone) is PowerDNS's 409. */
async function createDomain(ctx: PdnsContext, actor: Actor, body: Static<typeof CreateZoneBody>, zone: string, changes: readonly RrsetChange[]) {
  const kinds = kindsOf(body.kind);
  try {
    const group = body.account === undefined ? {} : { displayGroup: body.account };
    if (kinds.kind === 'slave') return await ctx.services.domains.create(actor, { domain: zone, ...kinds, masterIps: body.masters ?? [], ...group });
    return await ctx.services.domains.create(actor, { domain: zone, ...kinds, soaEmail: `hostmaster@${zone}`, ...soaSettings(changes), ...group });
  } catch (e) {
    if (e instanceof ConflictError && e.field === 'domain') throw new PdnsError(409, `Domain '${canonical(zone)}' already exists: ${e.message}`);
    throw e;
  }
}

function createZone(app: FastifyInstance, ctx: PdnsContext): void {
  typed(app).post(ZONES, { bodyLimit: ZONE_BODY_LIMIT, schema: { body: CreateZoneBody } }, async (req, reply) => {
    const actor = ctx.actor(req);
    const zone = absoluteOf(req.body.name).toLowerCase();
    // Every RRset is checked before the zone is made, so a bad one makes nothing.
    const changes = kindsOf(req.body.kind).kind === 'master' ? newZoneRrsets(req.body, zone) : [];
    const created = await createDomain(ctx, actor, req.body, zone, changes);
    // The SOA given became the domain's settings; the rest are records.
    const records = changes.filter((c) => c.type !== SOA_TYPE.type);
    try {
      if (records.length > 0) await ctx.services.changes.apply(actor, created.id, (stored, d) => changeItems(records, stored, d, ctx.services.nameservers), { remoteAddr: req.ip });
      if (req.body.dnssec === true && created.kind === 'master') await ctx.services.dnssec.set(actor, created.id, { enabled: true });
    } catch (e) {
      // The zone rules refused the records (or DNSSEC could not start): the zone goes too, as if never made.
      await ctx.services.domains.delete(actor, created.id);
      throw e;
    }
    const d = await ctx.services.domains.get(actor, created.id);
    return reply.code(201).send(await zoneAnswer(ctx, actor, d));
  });
}

function patchZone(app: FastifyInstance, ctx: PdnsContext): void {
  typed(app).patch(ZONE, { bodyLimit: ZONE_BODY_LIMIT, schema: { params: ZoneParams, body: PatchBody } }, async (req, reply) => {
    const actor = ctx.actor(req);
    const d = await zoneById(ctx, actor, req.params.zone_id);
    if (d.kind !== 'master') throw unprocessable(`Zone ${canonical(d.domain)} is a Slave zone: its records come from its masters`);
    const changes = checkRrsets(req.body.rrsets, d.domain, true);
    await ctx.services.changes.apply(actor, d.id, (stored, locked) => changeItems(changes, stored, locked, ctx.services.nameservers), { remoteAddr: req.ip });
    return reply.code(204).send();
  });
}

function putZone(app: FastifyInstance, ctx: PdnsContext): void {
  typed(app).put(ZONE, { schema: { params: ZoneParams, body: UpdateZoneBody } }, async (req, reply) => {
    const actor = ctx.actor(req);
    const d = await zoneById(ctx, actor, req.params.zone_id);
    const { kind, masters, dnssec, account } = req.body;
    const kinds = kind === undefined ? { kind: d.kind } : kindsOf(kind);
    const next = kinds.kind;
    const patch = {
      ...kinds,
      ...(next !== d.kind && next === 'master' && d.soaEmail === '' ? { soaEmail: `hostmaster@${d.domain}` } : {}),
      ...(masters !== undefined ? { masterIps: masters } : {}),
      ...(account !== undefined && account !== d.displayGroup ? { displayGroup: account } : {}),
    };
    if (Object.keys(patch).length > 0) await ctx.services.domains.update(actor, d.id, patch);
    if (dnssec !== undefined && next === 'master') await ctx.services.dnssec.set(actor, d.id, { enabled: dnssec });
    return reply.code(204).send();
  });
}

function deleteZone(app: FastifyInstance, ctx: PdnsContext): void {
  typed(app).delete(ZONE, { schema: { params: ZoneParams } }, async (req, reply) => {
    const actor = ctx.actor(req);
    await ctx.services.domains.delete(actor, (await zoneById(ctx, actor, req.params.zone_id)).id);
    return reply.code(204).send();
  });
}

/** notify, rectify (both acknowledged: NOTIFY goes out on every change, and our zones need no rectifying) and export. */
function zoneActions(app: FastifyInstance, ctx: PdnsContext): void {
  typed(app).put(`${ZONE}/notify`, { schema: { params: ZoneParams } }, async (req) => {
    const actor = ctx.actor(req);
    const d = await zoneById(ctx, actor, req.params.zone_id);
    if (d.kind !== 'master') throw unprocessable(`Zone ${canonical(d.domain)} is not a Master or Native zone`);
    return { result: 'Notification queued' };
  });
  typed(app).put(`${ZONE}/rectify`, { schema: { params: ZoneParams } }, async (req) => {
    const actor = ctx.actor(req);
    const d = await zoneById(ctx, actor, req.params.zone_id);
    if (d.kind !== 'master') throw unprocessable(`Zone ${canonical(d.domain)} is a Slave zone, which is not rectified`);
    return { result: 'Rectified' };
  });
  typed(app).get(`${ZONE}/export`, { schema: { params: ZoneParams } }, async (req, reply) => {
    const actor = ctx.actor(req);
    const d = await zoneById(ctx, actor, req.params.zone_id);
    let text: string;
    if (d.kind === 'master') text = await ctx.services.zonefiles.export(actor, d.id);
    else {
      const content = await contentOf(ctx, actor, d);
      text = content ? zoneFile(content) : '';
    }
    return reply.type('text/plain; charset=us-ascii').send(text);
  });
}
