/**
 * The server objects (`/api/v1/servers`, `/api/v1/servers/localhost`) and search-data: the caller's zones and
 * the records they serve whose name or content matches `q` (`*` any run of characters, `?` one; no regard to
 * case), at most `max` (100 unless given), as PowerDNS searches its database.
 */
import type { FastifyInstance } from 'fastify';
import type { StoredDomain } from '../../model/domain.js';
import type { Actor } from '../../services/index.js';
import { contentOf, typed, type PdnsContext } from './context.js';
import { unprocessable } from './errors.js';
import { canonical, zoneIdOf } from './names.js';
import { rrsetsOf, serverObject, serverPath } from './representation.js';
import { SearchQuery } from './schemas.js';

const OBJECT_TYPES = ['all', 'zone', 'record', 'comment'];
const DEFAULT_MAX = 100;

/** `q` as PowerDNS reads it: `*` and `?` are wildcards, the rest matched as written, without regard to case. */
function matcher(q: string): (text: string) => boolean {
  const source = q.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  const re = new RegExp(`^${source}$`, 'i');
  return (text) => re.test(text);
}

/** The records of one zone that match, each as a search result. */
async function matchingRecords(ctx: PdnsContext, actor: Actor, d: StoredDomain, matches: (text: string) => boolean) {
  const content = await contentOf(ctx, actor, d);
  if (!content) return [];
  const zoneId = zoneIdOf(d.domain);
  return rrsetsOf(content).flatMap((set) =>
    set.records
      .filter((r) => matches(set.name.slice(0, -1)) || matches(r.content))
      .map((r) => ({ content: r.content, disabled: false, name: set.name, object_type: 'record', ttl: set.ttl, type: set.type, zone: canonical(d.domain), zone_id: zoneId })),
  );
}

export function serverRoutes(ctx: PdnsContext) {
  return async (app: FastifyInstance) => {
    app.get('/servers', async () => [serverObject()]);
    app.get(serverPath(''), async () => serverObject());
    typed(app).get(serverPath('/search-data'), { schema: { querystring: SearchQuery } }, async (req) => {
      const actor = ctx.actor(req);
      const max = req.query.max === undefined ? DEFAULT_MAX : Number(req.query.max);
      if (!Number.isSafeInteger(max) || max < 1) throw unprocessable("Key 'max' is not a positive Integer");
      const kind = req.query.object_type ?? 'all';
      if (!OBJECT_TYPES.includes(kind)) throw unprocessable(`object_type '${kind}' is not one of ${OBJECT_TYPES.join(', ')}`);
      const matches = matcher(req.query.q);
      const out: object[] = [];
      for (const d of await ctx.services.domains.list(actor)) {
        if (out.length >= max) break;
        if ((kind === 'all' || kind === 'zone') && matches(d.domain)) out.push({ name: canonical(d.domain), object_type: 'zone', zone_id: zoneIdOf(d.domain) });
        if (kind === 'all' || kind === 'record') out.push(...(await matchingRecords(ctx, actor, d, matches)));
      }
      return out.slice(0, max);
    });
  };
}
