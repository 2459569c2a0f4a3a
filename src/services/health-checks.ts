/**
 * Health checks (issue 32): an account's probes of its servers, which records' steering follows. Account-level
 * like TSIG keys; a change of a check's status (the runner's, services/health-runner.ts) is a write to every
 * zone whose records name the check: journaled there (audit trail, /v1/events), the zone's serial raised, its
 * secondaries notified, its answers rebuilt with the check's new status.
 */
import { ConflictError, LimitError, NotFoundError, ScopeError, ValidationError } from '../model/errors.js';
import { checkHealthCheck, withDefaults, type HealthCheckData, type HealthStatus, type StoredHealthCheck } from '../model/health-check.js';
import { checkManage } from '../model/key-scope.js';
import type { Steering } from '../model/steering.js';
import type { AccountStore } from '../store/accounts.js';
import type { HealthCheckStore } from '../store/health-checks.js';
import type { Page } from '../store/page.js';
import type { Transactions } from '../store/store.js';
import { ownerActor, scopeOf, type Actor } from './actor.js';
import { AddressPolicy } from './address-policy.js';
import type { Precondition, PreconditionReads, ZoneWriter } from './zone-writer.js';

/** The most checks one account may hold. */
export const MAX_HEALTH_CHECKS = 100;

type ChecksStore = HealthCheckStore & Transactions<HealthCheckStore & Pick<AccountStore, 'lockAccount'> & PreconditionReads>;

/** The server itself changing a zone for a check's status (the audit trail names the check). */
const runnerActor = (accountId: number): Actor => ownerActor(accountId, '', 'system', 'health check');

/** What a status change journals: the check's id, type and address, and its status before and after. */
const statusImage = (c: StoredHealthCheck, status: HealthStatus) => ({ healthcheck: c.id, type: c.type, address: c.address, port: c.port, status });

export class HealthCheckService {
  readonly policy: AddressPolicy;

  constructor(
    private readonly store: ChecksStore,
    private readonly writer: ZoneWriter,
    private readonly now: () => number,
    /** --healthcheck-allow: networks checks may probe although not public (tests use loopback). */
    allow: readonly string[] = [],
  ) {
    this.policy = new AddressPolicy(allow, '--healthcheck-allow');
  }

  async create(actor: Actor, input: Partial<HealthCheckData>): Promise<StoredHealthCheck> {
    checkAccountWrite(actor);
    const data = this.checked(withDefaults(input));
    return this.store.transaction(async (tx) => {
      await tx.lockAccount(actor.accountId);
      if ((await tx.countHealthChecks(actor.accountId)) >= MAX_HEALTH_CHECKS) {
        throw new LimitError('healthchecks', `An account may hold at most ${MAX_HEALTH_CHECKS} health checks; delete one first.`);
      }
      return tx.insertHealthCheck(actor.accountId, data, this.now());
    });
  }

  list(actor: Actor, page?: Page): Promise<StoredHealthCheck[]> {
    return this.store.listHealthChecks(actor.accountId, page);
  }

  /** One of the actor's checks; NotFoundError for any other (another account's looks the same as none). */
  async get(actor: Actor, id: number): Promise<StoredHealthCheck> {
    return owned(this.store, actor.accountId, id);
  }

  /** Lays `patch` over the check; its status stays until the runner's next probes say otherwise. */
  async update(actor: Actor, id: number, patch: Partial<HealthCheckData>, precondition?: Precondition<StoredHealthCheck>): Promise<StoredHealthCheck> {
    checkAccountWrite(actor);
    return this.store.transaction(async (tx) => {
      await tx.lockAccount(actor.accountId);
      const current = await owned(tx, actor.accountId, id);
      await precondition?.(current, tx);
      const { id: _id, accountId: _a, status: _s, changedAt: _c, createdAt: _t, ...fields } = current;
      // A new type without a port takes that type's port.
      const port = patch.type !== undefined && patch.type !== current.type && patch.port === undefined ? withDefaults({ type: patch.type }).port : undefined;
      const data = this.checked({ ...fields, ...patch, ...(port === undefined ? {} : { port }) });
      await tx.updateHealthCheck(id, data);
      return { ...current, ...data };
    });
  }

  /** Deletes a check no record names any more (409 while one does: its records would lose their failover silently). */
  async delete(actor: Actor, id: number, precondition?: Precondition<StoredHealthCheck>): Promise<void> {
    checkAccountWrite(actor);
    await this.store.transaction(async (tx) => {
      await tx.lockAccount(actor.accountId);
      const current = await owned(tx, actor.accountId, id);
      await precondition?.(current, tx);
      const users = await tx.domainsUsingCheck(actor.accountId, id);
      if (users.length > 0) {
        throw new ConflictError(null, `Health check ${id} is named by the steering of records in ${users.map((d) => d.domain).join(', ')}; change or delete those records first.`);
      }
      await tx.deleteHealthCheck(actor.accountId, id);
    });
  }

  /** Every check of every account (the runner's list). */
  all(): Promise<StoredHealthCheck[]> {
    return this.store.allHealthChecks();
  }

  /**
   * The runner found the check `status`: stored, and journaled as a write to every zone whose records name the
   * check (its serial raised, its secondaries notified, its answers rebuilt). Nothing when the status is already
   * that (another node's runner, a leader before this one, got there first).
   */
  async setStatus(check: StoredHealthCheck, status: HealthStatus): Promise<void> {
    await this.writer.writeZones(runnerActor(check.accountId), async (tx, now) => {
      const current = await tx.healthCheck(check.accountId, check.id);
      if (!current || current.status === status) return { value: undefined, zones: [] };
      await tx.setHealthStatus(check.id, status, now);
      const domains = await tx.domainsUsingCheck(check.accountId, check.id);
      for (const d of domains) await tx.lockDomain(d.id);
      const journal = [{ action: 'healthcheck.status', objectId: check.id, before: statusImage(current, current.status), after: statusImage(current, status) }];
      return { value: undefined, zones: domains.map((d) => ({ change: { domainId: d.id, domain: d.domain, kind: 'records.changed' as const }, journal })) };
    });
  }

  /** The fields with their problems, the address policy's among them, raised as one ValidationError. */
  private checked(c: Partial<HealthCheckData>): HealthCheckData {
    const p = checkHealthCheck(c);
    const refusal = typeof c.address === 'string' && p.list.every((x) => x.field !== 'address') ? this.policy.refusal(c.address) : null;
    if (refusal) {
      p.add('address', `${c.address} is ${refusal}: health checks probe only public addresses unless the operator allows the network (--healthcheck-allow), so that they cannot be used to explore the service's own network.`);
    }
    p.throwIfAny();
    return c as HealthCheckData;
  }
}

/** Health checks belong to the account: a key limited to records or to some domains cannot change them. */
function checkAccountWrite(actor: Actor): void {
  const scope = scopeOf(actor);
  checkManage(scope, 'health checks');
  if (scope.domains) throw new ScopeError('domains', 'This API key is limited to some domains (scope.domains); it cannot change health checks, which belong to the whole account.');
}

async function owned(ops: Pick<HealthCheckStore, 'healthCheck'>, accountId: number, id: number): Promise<StoredHealthCheck> {
  const c = Number.isSafeInteger(id) && id > 0 ? await ops.healthCheck(accountId, id) : undefined;
  if (!c) throw new NotFoundError('healthcheck');
  return c;
}

/**
 * The health check a record's steering names must be one of the zone's account (checked inside the record's
 * write): another account's check is reported as missing, like a check that does not exist.
 */
export async function checkSteeringRefs(ops: Pick<HealthCheckStore, 'healthCheck'>, accountId: number, records: readonly { steering?: Steering | null }[]): Promise<void> {
  for (const r of records) {
    const id = r.steering?.healthcheck;
    if (id !== undefined && !(await ops.healthCheck(accountId, id))) {
      throw ValidationError.one('steering.healthcheck', `There is no health check of yours with the id ${id}; create it in /v1/healthchecks first.`);
    }
  }
}
