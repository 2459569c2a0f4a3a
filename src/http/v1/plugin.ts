/**
 * Interface B: the /v1 resource API. Each resource is a plugin of its own (its folder: schemas.ts beside
 * routes.ts); this one gives them what they share: authentication, JSON bodies, problem documents, output
 * checks. Routes are declared with TypeBox schemas that validate requests (every problem reported),
 * serialise responses and make up the OpenAPI document at /v1/openapi.json (openapi.ts).
 */
import { Type } from '@sinclair/typebox';
import type { FastifyError, FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { Services } from '../../services/index.js';
import { accountRoutes } from './account/routes.js';
import { authenticatedContext } from './auth.js';
import { changeRoutes } from './bulk-changes/routes.js';
import { dnssecRoutes } from './dnssec/routes.js';
import { healthCheckRoutes } from './healthchecks/routes.js';
import { domainRoutes, mirrorRoutes } from './domains/routes.js';
import { acceptJsonBodies } from './json-body.js';
import { collectOpenapi, openapiRoutes, serveDocsPage } from './openapi.js';
import { checkSuccessBodies } from './output-checks.js';
import { fastifyProblem, problem, problemFor, sendProblem } from './problem.js';
import { memberRoutes } from './members/routes.js';
import { queryRoutes } from './queries/routes.js';
import { recordRoutes } from './records/routes.js';
import type { ResourceRoutes } from './support.js';
import { securityRoutes } from './security/routes.js';
import { tsigKeyRoutes } from './tsig-keys/routes.js';
import { exact, text } from './validators.js';
import { zonefileRoutes } from './zonefiles/routes.js';

export const V1_PREFIX = '/v1';

/** Whether a request path belongs to interface B (for answers given outside the plugin, e.g. rate limits). */
export const isV1Path = (url: string): boolean => /^\/v1(?:[/?]|$)/i.test(url);

/** The resources, in the order their paths appear in the OpenAPI document. */
const RESOURCES: ResourceRoutes[] = [domainRoutes, mirrorRoutes, recordRoutes, changeRoutes, accountRoutes, memberRoutes, securityRoutes, tsigKeyRoutes, healthCheckRoutes, dnssecRoutes, queryRoutes, zonefileRoutes];

const validatorCompiler = ({ schema, httpPart }: { schema: object; httpPart?: string }) => (httpPart === 'body' ? exact : text).compile(schema);
/** The query string of a route that takes no query fields. */
const NO_QUERY = Type.Object({}, { additionalProperties: false });

/** Unknown query fields are refused everywhere, as documented: a route that takes none says so. */
function refuseUnknownQueries(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (route.schema?.response && !route.schema.querystring) route.schema = { ...route.schema, querystring: NO_QUERY };
  });
}

/** Every error, and every path with no resource, answers with a problem document. */
function answerWithProblems(app: FastifyInstance): void {
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
}

function api(services: Services): FastifyPluginAsync {
  return async (app) => {
    app.setValidatorCompiler(validatorCompiler);
    checkSuccessBodies(app);
    refuseUnknownQueries(app);
    acceptJsonBodies(app);
    const ctx = authenticatedContext(app, services);
    answerWithProblems(app);
    await app.register(openapiRoutes);
    for (const routes of RESOURCES) await app.register(routes(ctx));
  };
}

/** Interface B at /v1 and its documentation page at /docs; register at the root. */
export function v1Routes(services: Services): FastifyPluginAsync {
  return async (app: FastifyInstance) => {
    await collectOpenapi(app);
    await app.register(api(services), { prefix: V1_PREFIX });
    await serveDocsPage(app);
  };
}
