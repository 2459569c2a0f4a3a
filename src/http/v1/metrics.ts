/** /v1/domains/{id}/queries and /v1/zonemirrors/{id}/queries: a zone's DNS queries per minute, last 24 hours. */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { NotFoundError } from '../../model/errors.js';
import { QUERY_MINUTES } from '../../services/metrics.js';
import { IdParams, problemResponse } from './schemas.js';
import { allowOnly, type RouteContext } from './support.js';

export const QueryCounts = Type.Object(
  {
    start: Type.String({ format: 'date-time', description: 'Start of the first minute counted' }),
    interval: Type.Literal(60, { description: 'Seconds covered by each entry of counts' }),
    counts: Type.Array(Type.Integer({ minimum: 0 }), {
      minItems: QUERY_MINUTES,
      maxItems: QUERY_MINUTES,
      description: `DNS queries answered from the zone in each of the last ${QUERY_MINUTES} minutes, oldest first; the last entry is the current minute so far`,
    }),
  },
  {
    additionalProperties: false,
    title: 'QueryCounts',
    description: 'Counted in the memory of the node that answers this request (each node counts the queries it answered) and reset when it restarts.',
  },
);

export function metricsRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const { services } = ctx;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  for (const [base, kind, tag] of [
    ['/domains', 'master', 'domains'],
    ['/zonemirrors', 'slave', 'zonemirrors'],
  ] as const) {
    const url = `${base}/:id/queries`;
    r.get(
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
        const d = await services.domains.get(ctx.actor(req), req.params.id);
        if (d.kind !== kind) throw new NotFoundError(kind === 'master' ? 'domain' : 'mirror');
        const { start, counts } = services.metrics.queryCounts(d.id);
        return { start: new Date(start).toISOString(), interval: 60 as const, counts };
      },
    );
    allowOnly(app, url, ['GET']);
  }
}
