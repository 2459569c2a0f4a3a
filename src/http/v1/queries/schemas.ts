/** Schema of /v1/domains/{id}/queries and /v1/zonemirrors/{id}/queries: a zone's DNS queries per minute. */
import { Type } from '@sinclair/typebox';
import { QUERY_MINUTES } from '../../../services/metrics.js';

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
