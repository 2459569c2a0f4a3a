/**
 * The PowerDNS door: PowerDNS Authoritative's HTTP API (4.7) at /api/v1, over the same services, keys and scopes
 * as interfaces A and B. Authentication by `X-API-Key: <one of our API keys>`; every answer, a failure too, in
 * PowerDNS's shapes (`{"error": "…"}`, errors.ts). Bodies are JSON whatever their Content-Type says (libcloud
 * sends none), and a GET's body (lexicon sends `{}`) is not read. `GET /api` (the version list clients ask
 * first) is answered through interface A's endpoint, which shares the path: see `isDiscovery`.
 */
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { Ajv } from 'ajv';
import { AuthError } from '../../model/errors.js';
import type { Actor, Services } from '../../services/index.js';
import type { PdnsContext } from './context.js';
import { cryptokeyRoutes } from './cryptokeys.js';
import { answerError, sendFailure } from './errors.js';
import { serverRoutes } from './servers.js';
import { tsigKeyRoutes } from './tsigkeys.js';
import { zoneRoutes } from './zones.js';

export const PDNS_PREFIX = '/api/v1';

/** Whether a request path belongs to the PowerDNS door (for answers given outside the plugin: rate limits, unreadable requests). */
export const isPdnsPath = (url: string): boolean => /^\/api\/v1(?:[/?]|$)/i.test(url);

/** Bodies are taken as sent: no coercion ("300" is not a TTL), no defaults; the first problem is reported. */
const ajv = new Ajv({ allErrors: false, strict: false, coerceTypes: false, useDefaults: false, removeAdditional: false });

/** The version list PowerDNS answers at /api. */
const DISCOVERY = [{ url: PDNS_PREFIX, version: 1 }];

/**
 * Whether a request to /api is a PowerDNS client asking which API versions there are, rather than an
 * interface A call: a GET without `api_action` that carries PowerDNS's X-API-Key header (interface A takes its
 * key as `api_key`), or `GET /api` with no query at all.
 */
export function isDiscovery(req: FastifyRequest): boolean {
  if (req.method !== 'GET') return false;
  const query = req.url.includes('?') ? new URLSearchParams(req.url.slice(req.url.indexOf('?') + 1)) : null;
  if (query && [...query.keys()].some((k) => k.toLowerCase() === 'api_action')) return false;
  return req.headers['x-api-key'] !== undefined || (query === null && /^\/api$/i.test(req.url));
}

export const answerDiscovery = (reply: FastifyReply): FastifyReply => reply.type('application/json').send(JSON.stringify(DISCOVERY));

/** Every body parsed as JSON (an empty one as none), whatever its Content-Type. */
function acceptAnyJson(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  const parse = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('*', { parseAs: 'string' }, (req, body, done) => {
    if ((body as string).trim() === '') return done(null, undefined);
    parse(req, body as string, done);
  });
}

/** The caller of every request, from its X-API-Key, before any route runs. */
function authenticate(app: FastifyInstance, services: Services): PdnsContext {
  const actors = new WeakMap<FastifyRequest, Actor>();
  app.addHook('onRequest', async (req) => {
    const key = req.headers['x-api-key'];
    if (typeof key !== 'string' || key === '') throw new AuthError();
    actors.set(req, await services.accounts.authenticate(key, 'pdns', req.ip));
  });
  return {
    services,
    actor(req) {
      const a = actors.get(req);
      if (!a) throw new AuthError();
      return a;
    },
  };
}

function api(services: Services): FastifyPluginAsync {
  return async (app) => {
    app.setValidatorCompiler(({ schema }: { schema: object }) => ajv.compile(schema));
    app.setErrorHandler(answerError);
    app.setNotFoundHandler((_req, reply) => sendFailure(reply, { status: 404, error: 'Not Found' }));
    acceptAnyJson(app);
    const ctx = authenticate(app, services);
    for (const routes of [serverRoutes, zoneRoutes, cryptokeyRoutes, tsigKeyRoutes]) await app.register(routes(ctx));
  };
}

/** The door at /api/v1; register at the root. */
export function pdnsRoutes(services: Services): FastifyPluginAsync {
  return async (app) => {
    await app.register(api(services), { prefix: PDNS_PREFIX });
  };
}
