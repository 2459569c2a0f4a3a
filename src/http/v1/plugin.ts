/**
 * Interface B: the /v1 resource API. Routes are declared with TypeBox schemas that validate requests
 * (every problem reported), serialise responses and make up the OpenAPI document at /v1/openapi.json;
 * /docs renders that document with the assets bundled in @fastify/swagger-ui (no CDN).
 */
import swagger from '@fastify/swagger';
import { Type } from '@sinclair/typebox';
import swaggerUi from '@fastify/swagger-ui';
import type { ValidateFunction } from 'ajv';
import type { FastifyError, FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import { AuthError } from '../../model/errors.js';
import type { Actor, Services } from '../../services/index.js';
import { basicCredentials, bearerCredential } from '../credentials.js';
import { domainRoutes, mirrorRoutes } from './domains.js';
import { OPENAPI_INFO } from './openapi.js';
import { fastifyProblem, HttpProblem, problem, problemFor, sendProblem } from './problem.js';
import { recordRoutes } from './records.js';
import { changeRoutes } from './bulk-changes.js';
import { accountRoutes } from './account.js';
import { metricsRoutes } from './metrics.js';
import { tsigKeyRoutes } from './tsigkeys.js';
import { dnssecRoutes } from './dnssec.js';
import { zonefileRoutes } from './zonefiles.js';
import { allowOnly, type RouteContext } from './support.js';
import { exact, output, text } from './validators.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route needs no API key (key creation, the OpenAPI document). */
    public?: boolean;
    /** Validators of the route's success bodies, by status code (set when the route is added). */
    outputChecks?: Map<number, ValidateFunction>;
    /** Its success bodies hold records of any type or open objects: written by JSON.stringify once checked. */
    plainOutput?: boolean;
    /** Its body may be left out, also as an empty body labelled JSON (a rollover of the same algorithm). */
    bodyOptional?: boolean;
  }
}

const validatorCompiler = ({ schema, httpPart }: { schema: object; httpPart?: string }) => (httpPart === 'body' ? exact : text).compile(schema);
/** The query string of a route that takes no query fields. */
const NO_QUERY = Type.Object({}, { additionalProperties: false });

/**
 * The schema with the branches of every union moved to `$defs` and referred to. Inlined, a union of every
 * record type makes one function too large for V8 to optimise, and a record list's check several times slower.
 */
function unionsByReference(schema: object): object {
  const defs: Record<string, unknown> = {};
  const byReference = (branch: unknown) => {
    const name = `u${Object.keys(defs).length}`;
    defs[name] = null; // taken before the branch's own unions are named
    defs[name] = walk(branch);
    return { $ref: `#/$defs/${name}` };
  };
  const walk = (s: unknown): unknown => {
    if (Array.isArray(s)) return s.map(walk);
    if (!s || typeof s !== 'object') return s;
    const anyOf = (s as { anyOf?: unknown }).anyOf;
    // A union told apart by a `type` constant (the record types) goes straight to its branch, not through each.
    if (Array.isArray(anyOf) && anyOf.every(taggedByType)) {
      const { anyOf: _, ...rest } = s as Record<string, unknown>;
      return { ...walk(rest) as object, discriminator: { propertyName: 'type' }, oneOf: anyOf.map(byReference) };
    }
    return Object.fromEntries(Object.entries(s).map(([k, v]) => [k, k === 'anyOf' && Array.isArray(v) ? v.map(byReference) : walk(v)]));
  };
  const root = walk(schema) as Record<string, unknown>;
  return Object.keys(defs).length ? { ...root, $defs: defs } : root;
}

/** A union branch whose `type` is a required constant (each record type's schema). */
function taggedByType(branch: unknown): boolean {
  const b = branch as { properties?: { type?: { const?: unknown } }; required?: unknown[] } | null;
  return typeof b?.properties?.type?.const === 'string' && Array.isArray(b.required) && b.required.includes('type');
}

/** Compiled output checks by what they check: many routes answer with the same schema (a record of one type, a page of them). */
const outputChecks = new Map<string, ValidateFunction>();
/** What a response schema checks: all but what `success` adds to document it, which differs from route to route. */
const checkedPart = ({ 'x-response-description': _d, headers: _h, ...checked }: Record<string, unknown>) => JSON.stringify(checked);

/** The check of a success body, compiled once per schema (compiling them all took most of the server's start). */
function outputCheck(schema: object): ValidateFunction {
  const key = checkedPart(schema as Record<string, unknown>);
  let check = outputChecks.get(key);
  if (!check) outputChecks.set(key, (check = output.compile(unionsByReference(schema))));
  return check;
}

/**
 * Whether the schema holds, anywhere, a union of record types (the schema-driven serialiser would test each
 * record against every type's branch to pick one) or an object open to more fields (which it writes one
 * field at a time): bodies of such schemas are written by JSON.stringify once the output check has passed.
 */
function plainOutput(s: unknown): boolean {
  if (Array.isArray(s)) return s.some(plainOutput);
  if (!s || typeof s !== 'object') return false;
  const { anyOf, additionalProperties } = s as { anyOf?: unknown; additionalProperties?: unknown };
  if (Array.isArray(anyOf) && anyOf.length > 1 && anyOf.every(taggedByType)) return true;
  if (additionalProperties === true) return true;
  return Object.values(s).some(plainOutput);
}

/** Success bodies as the route's schema publishes them, per status code. */
function successSchemas(response: unknown): [number, object][] {
  if (!response || typeof response !== 'object') return [];
  return Object.entries(response as Record<string, object>)
    .filter(([code]) => /^2\d\d$/.test(code) && code !== '204')
    .map(([code, schema]) => [Number(code), schema]);
}

export const V1_PREFIX = '/v1';

const DOCS_CSP = "default-src 'self'; base-uri 'self'; img-src 'self' data:; font-src 'self' data:; style-src 'self'; script-src 'self'; object-src 'none'; frame-ancestors 'self'";

/** Whether a request path belongs to interface B (for answers given outside the plugin, e.g. rate limits). */
export const isV1Path = (url: string): boolean => /^\/v1(?:[/?]|$)/i.test(url);

function api(services: Services): FastifyPluginAsync {
  return async (app) => {
    const actors = new WeakMap<FastifyRequest, Actor>();
    /** The actor of the first key the request carries that authenticates; undefined when it carries none. */
    async function authenticate(req: FastifyRequest): Promise<Actor | undefined> {
      const keys = [bearerCredential(req), ...basicCredentials(req, false)].filter((k): k is string => !!k);
      for (const key of keys) {
        try {
          return await services.accounts.authenticate(key, 'v1', req.ip);
        } catch (e) {
          if (!(e instanceof AuthError)) throw e;
        }
      }
      if (keys.length > 0) throw new AuthError();
      return undefined;
    }
    const ctx: RouteContext = {
      services,
      actor(req) {
        const a = actors.get(req);
        if (!a) throw new AuthError();
        return a;
      },
      keyActor: authenticate,
    };

    app.setValidatorCompiler(validatorCompiler);

    // Output is validated as well as input (serialisation alone would drop unknown fields but pass bad
    // values): a success body that breaks its published schema becomes a 500, never a wrong answer.
    app.addHook('onRoute', (route) => {
      const successes = successSchemas(route.schema?.response);
      const checks = new Map(successes.map(([code, schema]) => [code, outputCheck(schema)]));
      if (checks.size > 0) route.config = { ...route.config, outputChecks: checks, plainOutput: successes.some(([, schema]) => plainOutput(schema)) };
      // Unknown query fields are refused everywhere, as documented: a route that takes none says so.
      if (route.schema?.response && !route.schema.querystring) route.schema = { ...route.schema, querystring: NO_QUERY };
    });
    app.addHook('preSerialization', async (req, reply, payload) => {
      const check = req.routeOptions.config?.outputChecks?.get(reply.statusCode);
      if (check && !check(payload)) {
        req.log.error({ errors: check.errors, url: req.url }, 'interface B response broke its schema; not sent');
        throw new HttpProblem(500, 'The server produced an invalid response; nothing was sent.');
      }
      // Such a body, once checked (every record schema is closed), is written as it is (see plainOutput).
      if (check && req.routeOptions.config?.plainOutput) reply.serializer(JSON.stringify);
      return payload;
    });
    // JSON only (415 for anything else); merge-patch is JSON too. JSON is UTF-8 (RFC 8259 section 8.1):
    // a body in another charset or coding, or with bytes that are not UTF-8, is refused rather than stored
    // with replacement characters.
    app.removeContentTypeParser('text/plain');
    app.removeContentTypeParser('application/json');
    const parseJson = app.getDefaultJsonParser('error', 'error');
    const utf8 = new TextDecoder('utf-8', { fatal: true });
    const jsonParser = (req: FastifyRequest, body: Buffer, done: (err: Error | null, body?: unknown) => void): void => {
      // Many clients label every request JSON: an empty body where none is needed (a DELETE) is no body.
      if (body.length === 0 && (!req.routeOptions.schema?.body || req.routeOptions.config?.bodyOptional)) return done(null, undefined);
      const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.headers['content-type'] ?? '')?.[1];
      const coding = req.headers['content-encoding'];
      if ((charset && !/^utf-?8$/i.test(charset)) || (coding && coding.toLowerCase() !== 'identity')) {
        return done(new HttpProblem(415, 'Send the body as uncompressed UTF-8 JSON (charset utf-8 or none, no Content-Encoding).'));
      }
      let text: string;
      try {
        text = utf8.decode(body);
      } catch {
        return done(new HttpProblem(400, 'The body is not valid UTF-8.'));
      }
      parseJson(req, text, done);
    };
    for (const type of ['application/json', 'application/merge-patch+json']) app.addContentTypeParser(type, { parseAs: 'buffer' }, jsonParser);

    app.addHook('onRequest', async (req) => {
      if (req.routeOptions.config?.public) return;
      const actor = await authenticate(req);
      if (!actor) throw new AuthError();
      actors.set(req, actor);
    });

    app.setErrorHandler((err, req, reply) => {
      const mapped = problemFor(err);
      if (mapped) {
        for (const [name, value] of Object.entries(mapped.headers)) reply.header(name, value);
        return sendProblem(reply, mapped.body);
      }
      const transport = fastifyProblem(err as FastifyError);
      if (transport) return sendProblem(reply, transport);
      req.log.error({ err }, 'interface B request failed');
      return sendProblem(reply, problem(500, 'The request could not be completed.'));
    });
    app.setNotFoundHandler((req, reply) => sendProblem(reply, problem(404, `There is no resource at ${req.url.split('?')[0]}.`)));

    app.get('/openapi.json', { schema: { hide: true }, config: { public: true } }, async () => app.swagger());
    allowOnly(app, '/openapi.json', ['GET']);

    domainRoutes(app, ctx);
    mirrorRoutes(app, ctx);
    recordRoutes(app, ctx);
    changeRoutes(app, ctx);
    accountRoutes(app, ctx);
    tsigKeyRoutes(app, ctx);
    dnssecRoutes(app, ctx);
    zonefileRoutes(app, ctx);
    metricsRoutes(app, ctx);
  };
}

/** Interface B at /v1 and its documentation page at /docs; register at the root. */
export function v1Routes(services: Services): FastifyPluginAsync {
  return async (app: FastifyInstance) => {
    await app.register(swagger, { openapi: OPENAPI_INFO });
    await app.register(api(services), { prefix: V1_PREFIX });
    // Offline: assets come from the package, the validator badge (a call to validator.swagger.io) is off,
    // and the CSP allows nothing but this server.
    await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { validatorUrl: null }, staticCSP: DOCS_CSP });
  };
}
