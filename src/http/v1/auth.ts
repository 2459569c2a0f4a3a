/** Who calls interface B: the API key a request carries (Bearer, or the Basic password), checked before any route runs. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AuthError } from '../../model/errors.js';
import type { Actor, Services } from '../../services/index.js';
import { basicCredentials, bearerCredential } from '../credentials.js';
import type { RouteContext } from './support.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route needs no API key (key creation, the OpenAPI document). */
    public?: boolean;
    /** The route sets up a second factor: open to a user whose account requires one they do not have yet. */
    factorSetup?: boolean;
  }
}

/** Authenticates every request to a route that is not public, and gives the routes their caller. */
export function authenticatedContext(app: FastifyInstance, services: Services): RouteContext {
  const actors = new WeakMap<FastifyRequest, Actor>();
  /** The actor of the first key the request carries that authenticates; undefined when it carries none. */
  async function authenticate(req: FastifyRequest): Promise<Actor | undefined> {
    const keys = [bearerCredential(req), ...basicCredentials(req, false)].filter((k): k is string => !!k);
    for (const key of keys) {
      try {
        return await services.accounts.authenticate(key, 'v1', req.ip, { factorSetup: req.routeOptions.config?.factorSetup ?? false });
      } catch (e) {
        if (!(e instanceof AuthError)) throw e;
      }
    }
    if (keys.length > 0) throw new AuthError();
    return undefined;
  }
  app.addHook('onRequest', async (req) => {
    if (req.routeOptions.config?.public) return;
    const actor = await authenticate(req);
    if (!actor) throw new AuthError();
    actors.set(req, actor);
  });
  return {
    services,
    actor(req) {
      const a = actors.get(req);
      if (!a) throw new AuthError();
      return a;
    },
    keyActor: authenticate,
  };
}
