/**
 * …/zones/{zone_id}/cryptokeys onto our DNSSEC (services/dnssec.ts): each zone is signed with one combined
 * key (a CSK) at a time, two during a rollover. Listing shows the keys with their DNSKEY and DS; creating a
 * key turns signing on; deleting the zone's key, or making it inactive, turns signing off (through RFC 8078's
 * delete CDS, so the keys are listed until the parent's DS has expired). Private keys are never shown.
 */
import type { FastifyInstance } from 'fastify';
import { algorithmName, dsOf, type DnssecAlgorithm } from '../../model/dnssec.js';
import { NotFoundError } from '../../model/errors.js';
import { decodeRdata, DNSKEY, DS, toPdns } from '../../model/records/index.js';
import type { DnssecInfo, PublicDnssecKey } from '../../services/dnssec.js';
import type { Actor } from '../../services/index.js';
import { typed, zoneById, type PdnsContext } from './context.js';
import { unprocessable } from './errors.js';
import { serverPath } from './representation.js';
import { CryptokeyBody, KeyParams, ZoneParams } from './schemas.js';

const KEYS = serverPath('/zones/:zone_id/cryptokeys');
const KEY = `${KEYS}/:cryptokey_id`;

/** The algorithms we sign with under the names and numbers PowerDNS takes. */
const ALGORITHMS: Record<string, DnssecAlgorithm> = {
  ECDSAP256SHA256: 'ECDSAP256SHA256',
  ECDSA256: 'ECDSAP256SHA256',
  '13': 'ECDSAP256SHA256',
  ED25519: 'ED25519',
  '15': 'ED25519',
};

function algorithmOf(raw: string | number | undefined): DnssecAlgorithm | undefined {
  if (raw === undefined) return undefined;
  const a = ALGORITHMS[String(raw).toUpperCase()];
  if (!a) throw unprocessable(`Unknown or unsupported algorithm '${raw}': zonehost signs with ECDSAP256SHA256 (13) or ED25519 (15)`);
  return a;
}

/** One key as PowerDNS shows a cryptokey (without `privatekey`). */
function cryptokey(zone: string, k: PublicDnssecKey) {
  const dnskey = decodeRdata(DNSKEY, k.dnskey, 0, k.dnskey.length);
  return {
    active: true,
    algorithm: algorithmName(k.algorithm) ?? String(k.algorithm),
    bits: 256,
    dnskey: toPdns(DNSKEY, dnskey),
    ds: [toPdns(DS, dsOf(zone, k.dnskey))],
    flags: k.flags,
    id: k.id,
    keytype: 'csk',
    published: true,
    type: 'Cryptokey',
  };
}

/** The zone's DNSSEC state; a zone mirror, served as its master signed it, has no keys of ours. */
async function dnssecOf(ctx: PdnsContext, actor: Actor, zoneId: string): Promise<DnssecInfo | null> {
  const d = await zoneById(ctx, actor, zoneId);
  return d.kind === 'master' ? ctx.services.dnssec.get(actor, d.id) : null;
}

function keyIn(info: DnssecInfo | null, id: string): PublicDnssecKey {
  const key = info?.keys.find((k) => String(k.id) === id);
  if (!key) throw new NotFoundError('key');
  return key;
}

export function cryptokeyRoutes(ctx: PdnsContext) {
  return async (app: FastifyInstance) => {
    typed(app).get(KEYS, { schema: { params: ZoneParams } }, async (req) => {
      const info = await dnssecOf(ctx, ctx.actor(req), req.params.zone_id);
      return info ? info.keys.map((k) => cryptokey(info.domain.domain, k)) : [];
    });
    typed(app).get(KEY, { schema: { params: KeyParams } }, async (req) => {
      const info = await dnssecOf(ctx, ctx.actor(req), req.params.zone_id);
      return cryptokey(info?.domain.domain ?? '', keyIn(info, req.params.cryptokey_id));
    });
    typed(app).post(KEYS, { schema: { params: ZoneParams, body: CryptokeyBody } }, async (req, reply) => {
      const actor = ctx.actor(req);
      const info = await dnssecOf(ctx, actor, req.params.zone_id);
      if (!info) throw unprocessable('A Slave zone is served as its masters signed it; it has no keys here');
      if (info.status === 'signed') throw unprocessable('The zone is signed with its key already; zonehost signs each zone with one key (replace it by a rollover on interface B)');
      const algorithm = algorithmOf(req.body.algorithm);
      const after = await ctx.services.dnssec.set(actor, info.domain.id, { enabled: req.body.active !== false, ...(algorithm ? { algorithm } : {}) });
      const newest = after.keys.at(-1);
      if (!newest) throw unprocessable('DNSSEC was not turned on: the key was created inactive');
      return reply.code(201).send(cryptokey(after.domain.domain, newest));
    });
    typed(app).put(KEY, { schema: { params: KeyParams, body: CryptokeyBody } }, async (req, reply) => {
      const actor = ctx.actor(req);
      const info = await dnssecOf(ctx, actor, req.params.zone_id);
      keyIn(info, req.params.cryptokey_id);
      if (req.body.active !== undefined && info) await ctx.services.dnssec.set(actor, info.domain.id, { enabled: req.body.active });
      return reply.code(204).send();
    });
    typed(app).delete(KEY, { schema: { params: KeyParams } }, async (req, reply) => {
      const actor = ctx.actor(req);
      const info = await dnssecOf(ctx, actor, req.params.zone_id);
      keyIn(info, req.params.cryptokey_id);
      if (info) await ctx.services.dnssec.set(actor, info.domain.id, { enabled: false });
      return reply.code(204).send();
    });
  };
}
