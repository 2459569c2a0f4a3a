/** Domain (master zone) and zone-mirror (slave zone) use cases, with ownership checks. */
import type { DnssecStatus } from '../model/dnssec.js';
import { checkDomain, DOMAIN_DEFAULTS, withoutSecrets, type DomainData, type StoredDomain } from '../model/domain.js';
import { ConflictError, LimitError, NotFoundError } from '../model/errors.js';
import type { Timestamps } from '../model/timestamps.js';
import { checkCreateDomain, checkManage, seesDomain } from '../model/key-scope.js';
import type { DomainFilter, DomainStore } from '../store/domains.js';
import { UniqueViolation } from '../store/store.js';
import { accountLimits, scopeOf, type Actor, type Limits } from './actor.js';
import type { CatalogService } from './catalog.js';
import { checkNameServerAddresses } from './zone-checks.js';
import type { Precondition, ZoneWriter } from './zone-writer.js';

/** What a domain list may be narrowed to (the doors see the store through the services). */
export type { DomainFilter };

export type DomainInput = Partial<DomainData> & Pick<DomainData, 'domain' | 'kind'>;

/**
 * One DNS server answers for every account, from the closest enclosing zone: a domain inside another
 * account's domain would take over its names (and let its owner obtain certificates for them), and one
 * enclosing another account's domain would claim the names around it. Within one account, nesting is a
 * delegation the owner chose.
 */
async function checkNesting(tx: Pick<DomainStore, 'domainsNestedWith'>, actor: Actor, name: string): Promise<void> {
  const others = (await tx.domainsNestedWith(name)).filter((d) => d.accountId !== actor.accountId);
  const above = others.find((d) => name.endsWith('.' + d.domain));
  if (above) {
    throw new ConflictError('domain', `The domain '${name}' lies inside ${above.domain}, which another account manages; only that account can add names below it.`);
  }
  // Not named: that would tell the caller which names below theirs exist.
  if (others.length > 0) throw new ConflictError('domain', `The domain '${name}' would contain a domain that another account manages.`);
}

/** The filter, narrowed to the domains the actor's key sees. */
export function scoped(actor: Actor, filter: DomainFilter): DomainFilter {
  const ids = scopeOf(actor).domains;
  return ids ? { ...filter, ids } : filter;
}

const duplicate = (name: string) =>
  new ConflictError('domain', `The domain '${name}' already exists in our database.  Please open a ticket if you think this is in error.`);

export class DomainService {
  constructor(
    private readonly store: Pick<DomainStore, 'domain' | 'listDomains' | 'listDomainsWithDnssec' | 'domainTimes'>,
    private readonly writer: ZoneWriter,
    private readonly limits: Limits,
    /** The catalog zone, whose name and the names inside it no domain may take. */
    private readonly catalog: Pick<CatalogService, 'covers'> | null = null,
  ) {}

  private checkNotCatalog(name: string): void {
    if (this.catalog?.covers(name)) throw new ConflictError('domain', `The name '${name}' belongs to this service's catalog zone.`);
  }

  get(actor: Actor, id: number): Promise<StoredDomain> {
    return this.owned(this.store, actor, id);
  }

  /** The actor's domains and mirrors; a key limited to some domains lists only those. */
  list(actor: Actor, filter: DomainFilter = {}): Promise<StoredDomain[]> {
    return this.store.listDomains(actor.accountId, scoped(actor, filter));
  }

  /** The same list, each with its DNSSEC status, in one query (a zone list that shows which zones are signed). */
  listWithDnssec(actor: Actor, filter: DomainFilter = {}): Promise<{ domain: StoredDomain; dnssec: DnssecStatus }[]> {
    return this.store.listDomainsWithDnssec(actor.accountId, scoped(actor, filter));
  }

  /** When each of the actor's domains (those its key sees) was made and last changed (Linode's v4 shows it), by id. */
  async times(actor: Actor): Promise<Map<number, Timestamps>> {
    const times = await this.store.domainTimes(actor.accountId);
    const scope = scopeOf(actor);
    return scope.domains ? new Map([...times].filter(([id]) => seesDomain(scope, id))) : times;
  }

  async create(actor: Actor, input: DomainInput): Promise<StoredDomain> {
    checkCreateDomain(scopeOf(actor));
    const data: DomainData = { ...DOMAIN_DEFAULTS, ...input };
    checkDomain(data).throwIfAny();
    this.checkNotCatalog(data.domain);
    try {
      const { value, serial } = await this.writer.write(actor, async (tx, now) => {
        await tx.lockAccount(actor.accountId);
        const { domainsPerAccount } = await accountLimits(tx, this.limits, actor.accountId);
        if ((await tx.countDomains(actor.accountId)) >= domainsPerAccount) {
          throw new LimitError('domain', `An account may hold at most ${domainsPerAccount} domains.`);
        }
        await tx.lockDomainNames();
        if (await tx.domainByName(data.domain)) throw duplicate(data.domain);
        await checkNesting(tx, actor, data.domain);
        const created = await tx.insertDomain(actor.accountId, data, 0, now);
        return {
          value: created,
          change: { domainId: created.id, domain: created.domain, kind: 'domain.created' },
          journal: [{ action: 'domain.create', objectId: created.id, before: null, after: withoutSecrets(data) }],
        };
      });
      return { ...value, serial };
    } catch (e) {
      // Two nodes racing for the same name: the loser gets the same clean error as a plain duplicate.
      if (e instanceof UniqueViolation) throw duplicate(data.domain);
      throw e;
    }
  }

  /**
   * Applies the given fields over the current ones (v3 update, v1 PATCH; v1 PUT passes every field).
   * `precondition` runs inside the write on the locked current domain, before any change (v1 If-Match).
   */
  async update(actor: Actor, id: number, patch: Partial<DomainData>, precondition?: Precondition<StoredDomain>): Promise<StoredDomain> {
    let name = patch.domain ?? '';
    try {
      await this.writer.write(actor, async (tx, now) => {
        const current = await this.locked(tx, actor, id);
        checkManage(scopeOf(actor), current.kind === 'slave' ? 'zone mirrors' : 'domain settings');
        await precondition?.(current, tx);
        const { id: _id, accountId: _a, serial: _s, ...before } = current;
        const data: DomainData = { ...before, ...patch };
        checkDomain(data).throwIfAny();
        name = data.domain;
        if (data.domain !== current.domain) {
          this.checkNotCatalog(data.domain);
          await tx.lockDomainNames();
          if (await tx.domainByName(data.domain)) throw duplicate(data.domain);
          await checkNesting(tx, actor, data.domain);
        }
        const changed = JSON.stringify(before) !== JSON.stringify(data);
        if (!changed) return { value: undefined, change: null, journal: [] };
        await tx.updateDomain(id, data, now);
        if (data.kind === 'slave' && (data.domain !== current.domain || current.kind !== 'slave')) {
          // The copy (and its transfer state) belongs to the zone it was pulled for: a mirror renamed, or a
          // domain made a mirror, starts empty and is pulled afresh, never serving another zone's data.
          await tx.saveMirrorState({ domainId: id, serial: null, lastSuccess: null, lastAttempt: null, lastError: null, zone: null });
        }
        if (data.kind === 'master' && data.domain !== current.domain) await checkNameServerAddresses(tx, id, data.domain, 'domain');
        return {
          value: undefined,
          change: { domainId: id, domain: data.domain, kind: 'domain.updated', previousDomain: current.domain },
          journal: [{ action: 'domain.update', objectId: id, before: withoutSecrets(before), after: withoutSecrets(data) }],
        };
      });
    } catch (e) {
      if (e instanceof UniqueViolation) throw duplicate(name);
      throw e;
    }
    return this.get(actor, id);
  }

  async delete(actor: Actor, id: number, precondition?: Precondition<StoredDomain>): Promise<StoredDomain> {
    const { value } = await this.writer.write(actor, async (tx) => {
      const current = await this.locked(tx, actor, id);
      checkManage(scopeOf(actor), current.kind === 'slave' ? 'zone mirrors' : 'domains');
      await precondition?.(current, tx);
      await tx.deleteDomain(id);
      return {
        value: current,
        change: { domainId: id, domain: current.domain, kind: 'domain.deleted', previousDomain: current.domain },
        journal: [{ action: 'domain.delete', objectId: id, before: withoutSecrets(current), after: null }],
      };
    });
    return value;
  }

  /** Inside a write: the actor's domain, read after taking its lock so no other writer's change is lost. */
  async locked(tx: Pick<DomainStore, 'lockDomain' | 'domain'>, actor: Actor, id: number): Promise<StoredDomain> {
    if (Number.isSafeInteger(id) && id > 0) await tx.lockDomain(id);
    return this.owned(tx, actor, id);
  }

  /**
   * The actor's domain, or NotFoundError (also for another account's, and for one outside the actor's key's
   * scope: they all look the same).
   */
  async owned(ops: Pick<DomainStore, 'domain'>, actor: Actor, id: number): Promise<StoredDomain> {
    const d = Number.isSafeInteger(id) && id > 0 && seesDomain(scopeOf(actor), id) ? await ops.domain(actor.accountId, id) : undefined;
    if (!d) throw new NotFoundError('domain');
    return d;
  }
}
