/** /v1/domains/{id}/queries and /v1/zonemirrors/{id}/queries: a zone's DNS queries per minute, last 24 hours. */
import type { FastifyInstance } from 'fastify';
import type { DomainKind } from '../../../model/domain.js';
import { NotFoundError } from '../../../model/errors.js';
import { IdParams, problemResponse } from '../shared-schemas.js';
import { allowOnly, typed, type ResourceRoutes, type RouteContext } from '../support.js';
import { QueryCounts } from './schemas.js';

export const queryRoutes: ResourceRoutes = (ctx) => async (app) => {
  zoneQueries(app, ctx, '/domains', 'master', 'domains');
  zoneQueries(app, ctx, '/zonemirrors', 'slave', 'zonemirrors');
};

function zoneQueries(app: FastifyInstance, ctx: RouteContext, base: string, kind: DomainKind, tag: string): void {
  const url = `${base}/:id/queries`;
  typed(app).get(
    url,
    {
      schema: {
        tags: [tag],
        summary: `DNS queries per minute of a ${kind === 'master' ? 'domain' : 'zone mirror'}, last 24 hours`,
        params: IdParams,
        response: { 200: QueryCounts, default: problemResponse },
      },
    },
    async (req) => {
      const d = await ctx.services.domains.get(ctx.actor(req), req.params.id);
      if (d.kind !== kind) throw new NotFoundError(kind === 'master' ? 'domain' : 'mirror');
      const { start, counts } = ctx.services.metrics.queryCounts(d.id);
      return { start: new Date(start).toISOString(), interval: 60 as const, counts };
    },
  );
  allowOnly(app, url, ['GET']);
}
