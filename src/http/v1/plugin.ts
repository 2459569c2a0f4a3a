/**
 * Interface B: the /v1 resource API. Routes are declared with TypeBox schemas that validate requests
 * (every problem reported), serialise responses and make up the OpenAPI document at /v1/openapi.json;
 * /docs renders that document with the assets bundled in @fastify/swagger-ui (no CDN).
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyError, FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import { AuthError } from '../../model/errors.js';
import type { Actor, Services } from '../../services/index.js';
import { basicCredentials, bearerCredential } from '../credentials.js';
import { domainRoutes, mirrorRoutes } from './domains.js';
import { OPENAPI_INFO } from './openapi.js';
import { fastifyProblem, problem, problemFor, sendProblem } from './problem.js';
import { recordRoutes } from './records.js';
import { accountRoutes } from './account.js';
import type { RouteContext } from './support.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route needs no API key (key creation, the OpenAPI document). */
    public?: boolean;
  }
}

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

/** Bodies are taken as sent (no coercion, no defaults filled in, unknown fields refused); every problem is reported. */
function validators() {
  const common = { allErrors: true, verbose: true, strict: false, removeAdditional: false } as const;
  const body = addFormats(new Ajv({ ...common, coerceTypes: false, useDefaults: false }));
  // Query strings and path parameters are text: numbers are coerced, defaults applied.
  const text = addFormats(new Ajv({ ...common, coerceTypes: true, useDefaults: true }));
  return ({ schema, httpPart }: { schema: object; httpPart?: string }) => (httpPart === 'body' ? body : text).compile(schema);
}

export const V1_PREFIX = '/v1';

/** Whether a request path belongs to interface B (for answers given outside the plugin, e.g. rate limits). */
export const isV1Path = (url: string): boolean => /^\/v1(?:[/?]|$)/i.test(url);

function api(services: Services): FastifyPluginAsync {
  return async (app) => {
    const actors = new WeakMap<FastifyRequest, Actor>();
    const ctx: RouteContext = {
      services,
      actor(req) {
        const a = actors.get(req);
        if (!a) throw new AuthError();
        return a;
      },
    };

    app.setValidatorCompiler(validators());
    // JSON only (415 for anything else); merge-patch is JSON too.
    app.removeContentTypeParser('text/plain');
    app.addContentTypeParser('application/merge-patch+json', { parseAs: 'string' }, app.getDefaultJsonParser('error', 'error'));

    app.addHook('onRequest', async (req) => {
      if (req.routeOptions.config?.public) return;
      const keys = [bearerCredential(req), ...basicCredentials(req)].filter((k): k is string => !!k);
      for (const key of keys) {
        try {
          actors.set(req, await services.accounts.authenticate(key, 'v1', req.ip));
          return;
        } catch (e) {
          if (!(e instanceof AuthError)) throw e;
        }
      }
      throw new AuthError();
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

    domainRoutes(app, ctx);
    mirrorRoutes(app, ctx);
    recordRoutes(app, ctx);
    accountRoutes(app, ctx);
  };
}

/** Interface B at /v1 and its documentation page at /docs; register at the root. */
export function v1Routes(services: Services): FastifyPluginAsync {
  return async (app: FastifyInstance) => {
    await app.register(swagger, { openapi: OPENAPI_INFO });
    await app.register(api(services), { prefix: V1_PREFIX });
    await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
  };
}
