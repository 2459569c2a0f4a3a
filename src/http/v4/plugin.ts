/**
 * The Linode API v4 door at /v4: the DNS part of Linode's v4 API (domains, their records, zone files,
 * imports by AXFR, clones) over the same services as every door. This plugin gives its resources what
 * they share: `Authorization: Bearer <API key>` (the same keys and scopes as interface B), JSON bodies
 * (an empty one is no body), TypeBox schemas checked as interface B checks them, and every failure in
 * Linode's `{"errors": [...]}` shape (errors.ts).
 */
import type { FastifyError, FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import { AuthError } from '../../model/errors.js';
import type { Actor, Services } from '../../services/index.js';
import { bearerCredential } from '../credentials.js';
import { exact, text } from '../v1/validators.js';
import { domainRoutes } from './domains/routes.js';
import { fastifyFailure, sendFailure, V4Failure, v4Failure } from './errors.js';
import { recordRoutes } from './records/routes.js';
import type { V4Context } from './support.js';

export const V4_PREFIX = '/v4';

/** Whether a request path belongs to the v4 door (for answers given outside the plugin: rate limits, client errors). */
export const isV4Path = (url: string): boolean => /^\/v4(?:[/?]|$)/i.test(url);

const validatorCompiler = ({ schema, httpPart }: { schema: object; httpPart?: string }) => (httpPart === 'body' ? exact : text).compile(schema);

/** JSON bodies as the JSON they are; an empty one (libcloud labels every request JSON, a DELETE too) is none. */
function acceptJsonBodies(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if ((body as string).length === 0) return done(null, undefined);
    parseJson(req, body as string, done);
  });
}

/** Every request carries an API key as a Bearer token; its actor is the routes' caller. */
function authenticate(app: FastifyInstance, services: Services): V4Context['actor'] {
  const actors = new WeakMap<FastifyRequest, Actor>();
  app.addHook('onRequest', async (req) => {
    const key = bearerCredential(req);
    if (!key) throw V4Failure.of(401, 'Invalid Token');
    actors.set(req, await services.accounts.authenticate(key, 'v4', req.ip));
  });
  return (req) => {
    const actor = actors.get(req);
    if (!actor) throw new AuthError();
    return actor;
  };
}

function answerFailures(app: FastifyInstance): void {
  app.setErrorHandler((err, req, reply) => {
    const failure = v4Failure(err) ?? fastifyFailure(err as FastifyError);
    if (failure) return sendFailure(reply, failure);
    req.log.error({ err }, 'v4 request failed');
    return sendFailure(reply, V4Failure.of(500, 'The request could not be completed.'));
  });
  app.setNotFoundHandler((_req, reply) => sendFailure(reply, V4Failure.of(404, 'Not found')));
}

function api(services: Services): FastifyPluginAsync {
  return async (app) => {
    app.setValidatorCompiler(validatorCompiler);
    acceptJsonBodies(app);
    answerFailures(app);
    const ctx: V4Context = { services, actor: authenticate(app, services) };
    await app.register(domainRoutes(ctx));
    await app.register(recordRoutes(ctx));
  };
}

/** The v4 door at /v4; register at the root. */
export function v4Routes(services: Services): FastifyPluginAsync {
  return async (app) => {
    await app.register(api(services), { prefix: V4_PREFIX });
  };
}
