/** Who calls interface B: the API key a request carries (Bearer, or the Basic password), checked before any route runs. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AuthError } from '../../model/errors.js';
import type { StoredDomain } from '../../model/domain.js';
import type { DomainFilter } from '../../services/domains.js';
import type { Actor, Services } from '../../services/index.js';
import { basicCredentials, bearerCredential } from '../credentials.js';
import type { RouteContext } from './support.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route needs no API key (key creation, the OpenAPI document). */
    public?: boolean;
    /** The route sets up a second factor: open to a user whose account requires one they do not have yet. */
    factorSetup?: boolean;
    /**
     * The route lists the caller's domains, with this filter for its query once checked: the hook reads the key
     * with that list (AccountService.authenticateListing), which the route takes with RouteContext.listDomains.
     */
    listsDomains?: (query: never) => DomainFilter;
  }
}

/** Authenticates every request to a route that is not public, and gives the routes their caller. */
export function authenticatedContext(app: FastifyInstance, services: Services): RouteContext {
  const actors = new WeakMap<FastifyRequest, Actor>();
  const listings = new WeakMap<FastifyRequest, { filter: string; domains: StoredDomain[] }>();
  /** The actor of the first key the request carries that authenticates; undefined when it carries none. */
  async function authenticate(req: FastifyRequest, filter?: DomainFilter): Promise<Actor | undefined> {
    const keys = [bearerCredential(req), ...basicCredentials(req, false)].filter((k): k is string => !!k);
    for (const key of keys) {
      try {
        if (!filter) return await services.accounts.authenticate(key, 'v1', req.ip, { factorSetup: req.routeOptions.config?.factorSetup ?? false });
        const { actor, domains } = await services.accounts.authenticateListing(key, 'v1', req.ip, filter);
        listings.set(req, { filter: JSON.stringify(filter), domains });
        return actor;
      } catch (e) {
        if (!(e instanceof AuthError)) throw e;
      }
    }
    if (keys.length > 0) throw new AuthError();
    return undefined;
  }
  /**
   * The filter of the route's list for the request's query, checked here on a copy as the route's validation
   * will check it: a query it refuses reads no list, and is refused (400) after the key is (401), as on any route.
   */
  function listing(req: FastifyRequest): DomainFilter | undefined {
    const filterOf = req.routeOptions.config?.listsDomains;
    const check = filterOf && req.getValidationFunction('querystring');
    const query = { ...(req.query as object) };
    try {
      return check && check(query) ? filterOf(query as never) : undefined;
    } catch {
      return undefined;
    }
  }
  app.addHook('onRequest', async (req) => {
    if (req.routeOptions.config?.public) return;
    const actor = await authenticate(req, listing(req));
    if (!actor) throw new AuthError();
    actors.set(req, actor);
  });
  const actor = (req: FastifyRequest) => {
    const a = actors.get(req);
    if (!a) throw new AuthError();
    return a;
  };
  return {
    services,
    actor,
    async listDomains(req, filter) {
      const read = listings.get(req);
      return read && read.filter === JSON.stringify(filter) ? read.domains : services.domains.list(actor(req), filter);
    },
    keyActor: (req) => authenticate(req),
  };
}
