/** What the PowerDNS door's routes share: the caller, and a zone found by its zone id, with what its object shows. */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { StoredDomain } from '../../model/domain.js';
import { NotFoundError } from '../../model/errors.js';
import { parseZone, zoneContent, type ZoneContent } from '../../model/zone.js';
import type { Actor, Services } from '../../services/index.js';
import { zoneNameOfId } from './names.js';
import type { ZoneFacts } from './representation.js';

export interface PdnsContext {
  services: Services;
  /** The authenticated caller (the plugin's hook checked the X-API-Key before any route ran). */
  actor(req: FastifyRequest): Actor;
}

/** The app as a route sees it: params, query and body typed by the route's TypeBox schemas. */
export type TypedApp = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;
export const typed = (app: FastifyInstance): TypedApp => app.withTypeProvider<TypeBoxTypeProvider>();

/** The caller's zone a zone id names; NotFoundError (404) for an id of no zone of theirs (another account's too). */
export async function zoneById(ctx: PdnsContext, actor: Actor, zoneId: string): Promise<StoredDomain> {
  const name = zoneNameOfId(zoneId);
  const [domain] = name === null ? [] : await ctx.services.domains.list(actor, { name });
  if (!domain) throw new NotFoundError('domain');
  return domain;
}

/** Whether a zone is signed, and a mirror's last transfer. */
export async function factsOf(ctx: PdnsContext, actor: Actor, d: StoredDomain): Promise<ZoneFacts> {
  if (d.kind === 'slave') return { dnssec: false, lastCheck: (await ctx.services.mirrors.state(actor, d.id)).lastSuccess };
  const status = (await ctx.services.dnssec.statuses(actor, [d])).get(d.id) ?? 'off';
  return { dnssec: status !== 'off', lastCheck: null };
}

/** The zone as served: a master's from its records (the service's cached list), a mirror's last copy (null before one). */
export async function contentOf(ctx: PdnsContext, actor: Actor, d: StoredDomain): Promise<ZoneContent | null> {
  if (d.kind === 'master') return zoneContent(d, await ctx.services.records.list(actor, d.id), ctx.services.nameservers);
  await ctx.services.mirrors.state(actor, d.id);
  const text = await ctx.services.mirrors.zoneOf(d.id);
  return text === null ? null : parseZone(text);
}
