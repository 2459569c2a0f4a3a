/** /v1/domains/{id}/dnssec: a master zone's DNSSEC (on, off, rollover), its keys and DS records. */
import type { Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { dnskeyText, dsText } from '../../../model/dnssec.js';
import type { DnssecInfo } from '../../../services/dnssec.js';
import { IdParams, problemResponse, success } from '../shared-schemas.js';
import { allowOnly, etagOf, isoTime, typed, type ResourceRoutes, type RouteContext } from '../support.js';
import { Dnssec, DnssecRollover, DnssecSettings } from './schemas.js';

/** The state as interface B shows it: DNSKEY and DS in master-file form, with the DNSKEY TTL the zone serves. */
export function v1Dnssec(info: DnssecInfo): Static<typeof Dnssec> {
  const ttl = info.timings.dnskeyTtl;
  return {
    enabled: info.status === 'signed',
    status: info.status,
    algorithm: info.algorithm,
    keys: info.keys.map((k) => ({
      id: k.id,
      key_tag: k.keyTag,
      flags: k.flags,
      algorithm: k.algorithm,
      state: k.state,
      dnskey: dnskeyText(info.domain.domain, ttl, k.dnskey),
      ds: [dsText(info.domain.domain, ttl, k.dnskey)],
      created: new Date(k.createdAt).toISOString(),
    })),
    next_step: isoTime(info.next?.at ?? null),
  };
}

const MASTER_ONLY = 'Domains only: a zone mirror is served as its master signed it, so it answers 404 here like a missing domain.';

/** The state as shown, with its ETag. */
const send = (info: DnssecInfo) => {
  const body = v1Dnssec(info);
  return { body, etag: etagOf(body) };
};

export const dnssecRoutes: ResourceRoutes = (ctx) => async (app) => {
  readDnssec(app, ctx);
  setDnssec(app, ctx);
  startRollover(app, ctx);
  allowOnly(app, '/domains/:id/dnssec', ['GET', 'PUT']);
  allowOnly(app, '/domains/:id/dnssec/rollover', ['POST']);
};

function readDnssec(app: FastifyInstance, ctx: RouteContext): void {
  typed(app).get(
    '/domains/:id/dnssec',
    {
      schema: {
        tags: ['dnssec'],
        summary: "Read a domain's DNSSEC state, keys and DS records",
        description: `The DS record of the active key is the one to give the registrar. Private keys are never shown. ${MASTER_ONLY}`,
        params: IdParams,
        response: { 200: success(Dnssec, 'The DNSSEC state', ['ETag']), default: problemResponse },
      },
    },
    async (req, reply) => {
      const { body, etag } = send(await ctx.services.dnssec.get(ctx.actor(req), req.params.id));
      return reply.header('etag', etag).send(body);
    },
  );
}

function setDnssec(app: FastifyInstance, ctx: RouteContext): void {
  typed(app).put(
    '/domains/:id/dnssec',
    {
      schema: {
        tags: ['dnssec'],
        summary: 'Turn DNSSEC on or off',
        description:
          `On: the zone is signed at once with a new key (CDS/CDNSKEY name it); copy its DS record to the registrar. Off: CDS/CDNSKEY say delete (RFC 8078), the keys go on signing until the parent's DS has expired, then the zone is served unsigned (status "unsigning", then "off"). Idempotent. 409 when a signed zone is asked for another algorithm (use a rollover) or the server has no key-encryption key. ${MASTER_ONLY}`,
        params: IdParams,
        body: DnssecSettings,
        response: { 200: success(Dnssec, 'The DNSSEC state after the change', ['ETag']), default: problemResponse },
      },
    },
    async (req, reply) => {
      const { enabled, algorithm } = req.body;
      const { body, etag } = send(await ctx.services.dnssec.set(ctx.actor(req), req.params.id, { enabled, ...(algorithm === undefined ? {} : { algorithm }) }));
      return reply.header('etag', etag).send(body);
    },
  );
}

function startRollover(app: FastifyInstance, ctx: RouteContext): void {
  typed(app).post(
    '/domains/:id/dnssec/rollover',
    {
      // Every field is optional, so a POST without a body (curl -X POST) is a rollover of the same algorithm.
      config: { bodyOptional: true },
      preValidation: async (req) => {
        if (req.body === undefined || req.body === null) req.body = {};
      },
      schema: {
        tags: ['dnssec'],
        summary: 'Start a key rollover',
        description:
          `A new key (of the given algorithm, else the current one) is published and signs at once; after the DNSKEY TTL CDS/CDNSKEY name it and the old key retires; after the DS TTL the old key goes. Replace the DS at the registrar once the new key is active. The body may be left out. Answers 202 with the state. 409 when the zone is not signed or a rollover is under way. ${MASTER_ONLY}`,
        params: IdParams,
        body: DnssecRollover,
        response: { 202: success(Dnssec, 'The rollover has started; the state with the new key', ['ETag']), default: problemResponse },
      },
    },
    async (req, reply) => {
      const { algorithm } = req.body;
      const { body, etag } = send(await ctx.services.dnssec.rollover(ctx.actor(req), req.params.id, algorithm === undefined ? {} : { algorithm }));
      return reply.code(202).header('etag', etag).send(body);
    },
  );
}
