/**
 * /v1/domains/{id}/zonefile: a master domain's zone as a master file (RFC 1035 5, `text/dns`, RFC 4027).
 * GET exports the zone as served; PUT makes the domain's records those of the file (services/zonefiles.ts),
 * `?dry_run=true` only answers what it would change; POST .../zonefile/transfer imports the zone by AXFR from
 * the customer's current provider, checked and written as a PUT. The routes live in a plugin of their own, the one place
 * of interface B that takes a body other than JSON.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { toV1, type RecordData, type StoredRecord } from '../../../model/records/index.js';
import { ZoneFileError } from '../../../model/zonefile.js';
import { DestinationRefusedError } from '../../../services/import-destinations.js';
import { ZoneTransferError, type ZoneFileDiff, type ZoneFileSettings } from '../../../services/zonefiles.js';
import { HttpProblem } from '../problem.js';
import { IdParams, problemResponse, success } from '../shared-schemas.js';
import { allowOnly, typed, type ResourceRoutes, type RouteContext } from '../support.js';
import { Diff, DryRunQuery, TransferBody } from './schemas.js';

/** The largest zone file a PUT takes: ten times the API's usual body limit, room for some 100,000 records. */
export const ZONEFILE_BODY_LIMIT = 10 * 1024 * 1024;
/** The media type of zone files (RFC 4027); PUT also takes text/plain. */
export const ZONEFILE_TYPE = 'text/dns';
const ZONEFILE_URL = '/domains/:id/zonefile';
const TRANSFER_URL = '/domains/:id/zonefile/transfer';

const SETTING_NAMES: Record<keyof ZoneFileSettings, string> = { soaEmail: 'soa', ttl: 'default_ttl', refresh: 'refresh', retry: 'retry', expire: 'expire' };

// Object.assign rather than spreads: several times faster over the thousands of records an import answers with.
const shown = (r: RecordData | StoredRecord): { id?: number; type: string } => Object.assign('id' in r ? { id: r.id, type: r.type } : { type: r.type }, toV1(r));

function v1Diff(d: ZoneFileDiff, dryRun: boolean) {
  return {
    dry_run: dryRun,
    added: d.added.map(shown),
    removed: d.removed.map(shown),
    changed: d.changed.map((c) => ({ before: shown(c.before), after: shown(c.after) })),
    unchanged: d.unchanged.map(shown),
    domain: {
      soa: d.settings.soaEmail,
      default_ttl: d.settings.ttl,
      refresh: d.settings.refresh,
      retry: d.settings.retry,
      expire: d.settings.expire,
      changed: d.settings.changed.map((f) => SETTING_NAMES[f]),
    },
  };
}

/** A zone file's problems: 422, one entry per bad line (`field` is "line N"). */
function fileProblem(e: ZoneFileError): HttpProblem {
  const lines = e.problems.length;
  return new HttpProblem(
    422,
    `The zone file has ${lines === 1 ? 'a bad line' : `${lines} bad lines`}; nothing was written.`,
    e.problems.map((p) => ({ field: `line ${p.line}`, reason: p.message })),
  );
}

/** A transferred zone's problems: 422, one entry per bad record (`field` "transfer", the record quoted). */
function transferProblem(e: ZoneFileError): HttpProblem {
  const n = e.problems.length;
  return new HttpProblem(
    422,
    `The transferred zone has ${n === 1 ? 'a record' : `${n} records`} we do not take; nothing was written.`,
    e.problems.map((p) => ({ field: 'transfer', reason: p.message })),
  );
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The body of a zone-file route: UTF-8 (or ASCII) text, uncompressed. */
function zonefileText(req: FastifyRequest, body: Buffer, done: (err: Error | null, body?: unknown) => void): void {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.headers['content-type'] ?? '')?.[1];
  const coding = req.headers['content-encoding'];
  if ((charset && !/^(utf-?8|us-ascii)$/i.test(charset)) || (coding && coding.toLowerCase() !== 'identity')) {
    return done(new HttpProblem(415, 'Send the zone file as uncompressed UTF-8 text (charset utf-8, us-ascii or none, no Content-Encoding).'));
  }
  try {
    done(null, utf8.decode(body));
  } catch {
    done(new HttpProblem(400, 'The zone file is not valid UTF-8.'));
  }
}

// A plugin of its own: text bodies are taken here only, every other route keeps JSON only.
export const zonefileRoutes: ResourceRoutes = (ctx) => async (app) => {
  for (const type of [ZONEFILE_TYPE, 'text/plain']) app.addContentTypeParser(type, { parseAs: 'buffer', bodyLimit: ZONEFILE_BODY_LIMIT }, zonefileText);
  exportZonefile(app, ctx);
  importZonefile(app, ctx);
  allowOnly(app, ZONEFILE_URL, ['GET', 'PUT']);
  transferZone(app, ctx);
  allowOnly(app, TRANSFER_URL, ['POST']);
};

function exportZonefile(app: FastifyInstance, ctx: RouteContext): void {
  typed(app).get(
    ZONEFILE_URL,
    {
      schema: {
        tags: ['domains'],
        summary: "Export a domain's zone file",
        description:
          'The zone as the DNS server serves it, as an RFC 1035 master file (text/dns, RFC 4027): the SOA first, the apex NS records ' +
          '(the service\'s name servers and the domain\'s own), then every record, one a line, every name absolute, one TTL per RRset. ' +
          'named-checkzone accepts it, and a PUT of it into another domain of the same name gives the same file back. A zone mirror is 409.',
        params: IdParams,
        response: {
          200: { description: 'The zone file', content: { [ZONEFILE_TYPE]: { schema: Type.String({ description: 'An RFC 1035 master file, UTF-8 (charset=utf-8)' }) } } },
          default: problemResponse,
        },
      },
    },
    async (req, reply) => {
      const text = await ctx.services.zonefiles.export(ctx.actor(req), req.params.id);
      return reply.type(`${ZONEFILE_TYPE}; charset=utf-8`).send(text);
    },
  );
}

function importZonefile(app: FastifyInstance, ctx: RouteContext): void {
  typed(app).put(
    ZONEFILE_URL,
    {
      bodyLimit: ZONEFILE_BODY_LIMIT,
      // Before the schema: a JSON body would otherwise be refused as "not a string", and an empty one would
      // make the zone empty (a client whose file read failed sends nothing).
      preValidation: async (req) => {
        if (typeof req.body !== 'string') throw new HttpProblem(415, 'Send the zone file as text/dns (or text/plain), UTF-8.');
        if (req.body.trim() === '') throw new HttpProblem(400, 'The zone file is empty; nothing was written. A file with just the SOA makes the zone empty.');
      },
      schema: {
        tags: ['domains'],
        summary: "Replace a domain's records by a zone file",
        description:
          "Makes the domain's records exactly those of the file (body text/dns or text/plain, UTF-8, at most 10 MiB), in one transaction " +
          'with one serial increase: records the zone lacks are added, records the file lacks removed, records whose TTL differs changed, ' +
          "the rest left as they are (same ids). The file's SOA gives the domain's SOA e-mail, refresh, retry, expire and default TTL " +
          "(never the serial); apex NS records naming the service's own name servers are the service's and skipped. With `dry_run=true` " +
          'the answer is the same difference and nothing is written. A file with bad lines is 422 with one problem per line ' +
          '(`field` "line N"), and nothing is written; more records than a domain may hold, or a zone mirror, is 409; a body over 10 MiB 413. ' +
          'Syntax taken and refused: docs/interface-b.md#zone-files.',
        params: IdParams,
        querystring: DryRunQuery,
        consumes: [ZONEFILE_TYPE, 'text/plain'],
        body: Type.String({ description: 'An RFC 1035 master file for the domain' }),
        response: { 200: success(Diff, 'The difference (applied, or with dry_run only computed)'), default: problemResponse },
      },
    },
    async (req) => {
      const dryRun = req.query.dry_run === true;
      try {
        const diff = await ctx.services.zonefiles.import(ctx.actor(req), req.params.id, req.body, { dryRun });
        return v1Diff(diff, dryRun);
      } catch (e) {
        if (e instanceof ZoneFileError) throw fileProblem(e);
        throw e;
      }
    },
  );
}

function transferZone(app: FastifyInstance, ctx: RouteContext): void {
  typed(app).post(
    TRANSFER_URL,
    {
      schema: {
        tags: ['domains'],
        summary: "Import a domain's zone by AXFR from its current provider",
        description:
          "Pulls the zone by AXFR (RFC 5936) from `server` (an IP address) on `port` (53 unless given), signed with `tsig` when given, and makes " +
          "the domain's records those of the zone received, exactly as a PUT of its zone file would (same checks, same answer; `dry_run=true` " +
          'writes nothing). DNSSEC records the server sends (RRSIG, NSEC, DNSKEY...) are dropped: the zone is signed here when DNSSEC is on. ' +
          'Destinations refused before any connection (422, `field` server or port): host names, loopback, private, link-local, CGNAT, ' +
          'multicast and reserved addresses unless the operator allows them, and ports other than 53 and 1024-65535. One transfer at a time ' +
          'per account (409), at most 60 s and 64 MiB. A transfer that fails (REFUSED, NOTAUTH, a timeout, a connection refused, not the zone) ' +
          'is 502 saying what the server answered; a zone with records we do not take is 422 naming them. Nothing is written on any error. ' +
          'Rules: docs/interface-b.md#import-by-axfr.',
        params: IdParams,
        querystring: DryRunQuery,
        body: TransferBody,
        response: { 200: success(Diff, 'The difference (applied, or with dry_run only computed)'), default: problemResponse },
      },
    },
    async (req) => {
      const dryRun = req.query.dry_run === true;
      const { server, port, tsig } = req.body;
      try {
        const diff = await ctx.services.zonefiles.transfer(ctx.actor(req), req.params.id, { server, ...(port === undefined ? {} : { port }), tsig: tsig ?? null }, { dryRun });
        return v1Diff(diff, dryRun);
      } catch (e) {
        if (e instanceof ZoneFileError) throw transferProblem(e);
        if (e instanceof DestinationRefusedError) throw new HttpProblem(422, e.message, [{ field: e.field, reason: e.message }]);
        if (e instanceof ZoneTransferError) throw new HttpProblem(502, e.message, [{ field: 'server', reason: e.reason }]);
        throw e;
      }
    },
  );
}
