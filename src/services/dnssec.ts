/**
 * DNSSEC keys and state of master zones: turning signing on and off, key rollovers, and the timed steps
 * between (`advance`). What a zone signs with is read by the DNS side through services.zones (`signing`).
 *
 * One combined signing key (CSK, flags 257) per zone rather than a KSK and a ZSK: we sign online, so every
 * private key is on the server anyway and a split protects nothing; one key means one DNSKEY, smaller
 * answers, and a DS change at the registrar only on a rollover (deSEC does the same). The states, timings
 * and their reasons are in docs/dnssec.md.
 */
import { createPrivateKey, type KeyObject } from 'node:crypto';
import type { StoredDomain } from '../model/domain.js';
import {
  cdsOf,
  CSK_FLAGS,
  DEFAULT_DNSSEC_ALGORITHM,
  DEFAULT_DNSSEC_TIMINGS,
  DNSSEC_ALGORITHMS,
  dnskeyPublicKey,
  dnskeyRdata,
  generatePrivateKey,
  keyTag,
  nextDnssecStep,
  openKey,
  sealContext,
  sealKey,
  type DnssecAlgorithm,
  type DnssecKeyData,
  type DnssecKeyState,
  type DnssecStatus,
  type DnssecStep,
  type DnssecTimings,
  type DnssecZoneState,
  type StoredDnssecKey,
  type ZoneSigning,
} from '../model/dnssec.js';
import { ConflictError, NotFoundError } from '../model/errors.js';
import type { DnssecStore } from '../store/dnssec.js';
import type { DomainStore } from '../store/domains.js';
import { checkManage } from '../model/key-scope.js';
import { ownerActor, scopeOf, type Actor } from './actor.js';
import type { DomainService } from './domains.js';
import type { ZoneEventBus } from './zone-events.js';
import type { JournalEntry, ZoneWriter } from './zone-writer.js';

export interface DnssecOptions {
  /** The key-encryption key; null where there is none (PostgreSQL without --key-encryption-key-file). */
  kek: Buffer | null;
  timings?: Partial<DnssecTimings>;
}

/** A key as shown to its owner: everything but the private key. */
export type PublicDnssecKey = Omit<StoredDnssecKey, 'sealedKey'>;

/** A zone's DNSSEC state as its owner sees it. */
export interface DnssecInfo {
  domain: StoredDomain;
  status: DnssecStatus;
  /** The algorithm of the newest key; null when off. */
  algorithm: DnssecAlgorithm | null;
  keys: PublicDnssecKey[];
  /** The next timed step, if one is pending. */
  next: DnssecStep | null;
  timings: DnssecTimings;
}

export interface DnssecSettings {
  enabled: boolean;
  algorithm?: DnssecAlgorithm;
}

const publicKey = ({ sealedKey: _s, ...k }: StoredDnssecKey): PublicDnssecKey => k;

/** The journal's image of a zone's DNSSEC state: public parts only, never a private key. */
function image(zone: DnssecZoneState | undefined, keys: readonly StoredDnssecKey[]) {
  return {
    status: zone?.status ?? 'off',
    algorithm: zone && zone.status !== 'off' ? zone.algorithm : null,
    keys: keys.map((k) => ({ id: k.id, keyTag: k.keyTag, algorithm: k.algorithm, flags: k.flags, state: k.state })),
  };
}

const noChange = <T>(value: T) => ({ value, change: null, journal: [] });

/** The timed steps run by the server itself: they go into the zone owner's audit trail as such. */
const timerActor = (accountId: number): Actor => ownerActor(accountId, '', 'system', 'dnssec timer');

export class DnssecService {
  readonly timings: DnssecTimings;
  private readonly kek: Buffer | null;
  /** Opened private keys by key id (a key's private key never changes; ids are never reused). */
  private readonly opened = new Map<number, { domainId: number; key: KeyObject }>();
  private running: Promise<number> | null = null;

  constructor(
    private readonly store: DnssecStore & Pick<DomainStore, 'domain' | 'domainById'>,
    private readonly writer: ZoneWriter,
    private readonly domains: DomainService,
    bus: ZoneEventBus,
    options: DnssecOptions,
  ) {
    this.kek = options.kek;
    this.timings = { ...DEFAULT_DNSSEC_TIMINGS, ...options.timings };
    bus.on((c) => {
      if (c.kind === 'domain.deleted') this.forget(c.domainId, []);
    });
  }

  /** Whether this node can make and open keys. */
  get available(): boolean {
    return this.kek !== null;
  }

  async get(actor: Actor, domainId: number): Promise<DnssecInfo> {
    const domain = await this.master(this.store, actor, domainId);
    const { zone, keys } = await this.stateOf(domain.id);
    return this.info(domain, zone, keys);
  }

  /**
   * The DNSSEC status of each of `domains` (the actor's, as `domains.list` gave them; others are left out), read
   * in one query: a zone list that says which zones are signed, whatever their number.
   */
  async statuses(actor: Actor, domains: readonly StoredDomain[]): Promise<Map<number, DnssecStatus>> {
    const mine = new Set(domains.filter((d) => d.accountId === actor.accountId).map((d) => d.id));
    const out = new Map<number, DnssecStatus>();
    if (mine.size === 0) return out;
    const { zones } = await this.store.dnssecOfDomains(Math.min(...mine), Math.max(...mine));
    for (const z of zones) if (mine.has(z.domainId)) out.set(z.domainId, z.status);
    return out;
  }

  /**
   * Turns signing on or off; idempotent. On: a zone that is off gets a new active key at once; one being
   * turned off is signed again with the keys it has. Off: CDS/CDNSKEY say delete and the keys go on signing
   * until the timer turns the zone off. The algorithm of a signed zone changes by a rollover only.
   */
  async set(actor: Actor, domainId: number, settings: DnssecSettings): Promise<DnssecInfo> {
    await this.writer.write(actor, async (tx, now) => {
      const domain = await this.lockedMaster(tx, actor, domainId);
      const zone = await tx.dnssecZone(domain.id);
      const keys = await tx.dnssecKeys(domain.id);
      const status = zone?.status ?? 'off';
      const before = image(zone, keys);
      const done = (action: string, after: DnssecZoneState, afterKeys: StoredDnssecKey[]) => ({
        value: undefined,
        change: { domainId: domain.id, domain: domain.domain, kind: 'dnssec.changed' as const },
        journal: [{ action, objectId: domain.id, before, after: image(after, afterKeys) }],
      });
      if (!settings.enabled) {
        if (status !== 'signed' || !zone) return noChange(undefined);
        const next: DnssecZoneState = { ...zone, status: 'unsigning', since: now };
        await tx.saveDnssecZone(next);
        return done('dnssec.disable', next, keys);
      }
      if (zone && status !== 'off' && settings.algorithm && settings.algorithm !== zone.algorithm) {
        throw new ConflictError(
          'algorithm',
          `The zone is signed with ${zone.algorithm}; change the algorithm with a rollover (POST /v1/domains/${domain.id}/dnssec/rollover {"algorithm": "${settings.algorithm}"}).`,
        );
      }
      if (status === 'signed') return noChange(undefined);
      const algorithm = status === 'unsigning' && zone ? zone.algorithm : (settings.algorithm ?? DEFAULT_DNSSEC_ALGORITHM);
      const afterKeys = keys.length > 0 ? keys : [await tx.insertDnssecKey(domain.id, this.newKey(domain.id, algorithm, 'active'), now)];
      const next: DnssecZoneState = { domainId: domain.id, status: 'signed', algorithm, since: now };
      await tx.saveDnssecZone(next);
      return done('dnssec.enable', next, afterKeys);
    });
    return this.get(actor, domainId);
  }

  /**
   * Starts a rollover to a new key (of another algorithm, if given): the new key is published and signs at
   * once, and the timer moves CDS/CDNSKEY to it and then removes the old key. One rollover at a time.
   */
  async rollover(actor: Actor, domainId: number, options: { algorithm?: DnssecAlgorithm } = {}): Promise<DnssecInfo> {
    await this.writer.write(actor, async (tx, now) => {
      const domain = await this.lockedMaster(tx, actor, domainId);
      const zone = await tx.dnssecZone(domain.id);
      const keys = await tx.dnssecKeys(domain.id);
      if (zone?.status !== 'signed') {
        const why = zone?.status === 'unsigning' ? 'DNSSEC is being turned off for this zone' : 'DNSSEC is off for this zone';
        throw new ConflictError(null, `${why}; turn it on first (PUT /v1/domains/${domain.id}/dnssec {"enabled": true}).`);
      }
      const busy = keys.find((k) => k.state !== 'active');
      if (busy) {
        throw new ConflictError(null, `A rollover is under way (key ${busy.keyTag} is ${busy.state}); start the next one when it has finished.`);
      }
      const algorithm = options.algorithm ?? zone.algorithm;
      const key = await tx.insertDnssecKey(domain.id, this.newKey(domain.id, algorithm, 'incoming'), now);
      const next: DnssecZoneState = { ...zone, algorithm };
      await tx.saveDnssecZone(next);
      return {
        value: undefined,
        change: { domainId: domain.id, domain: domain.domain, kind: 'dnssec.changed' },
        journal: [{ action: 'dnssec.rollover', objectId: key.id, before: image(zone, keys), after: image(next, [...keys, key]) }],
      };
    });
    return this.get(actor, domainId);
  }

  /**
   * Takes every step that is due at `now` (epoch ms), each as a zone write of its own. Run by the cluster
   * leader's timer (server.ts); overlapping calls share one run. Resolves with the number of steps taken.
   */
  advance(now: number = this.writer.now()): Promise<number> {
    this.running ??= this.advanceAll(now).finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /** Settles when no `advance` is running (for a clean shutdown). */
  async idle(): Promise<void> {
    await this.running?.catch(() => {});
  }

  private async advanceAll(now: number): Promise<number> {
    let steps = 0;
    for (const domainId of await this.store.dnssecPending()) {
      const { zone, keys } = await this.stateOf(domainId);
      const step = nextDnssecStep(zone, keys, this.timings);
      if (!step || step.at > now) continue;
      const domain = await this.store.domainById(domainId);
      if (!domain) continue;
      // Several steps may be due at once (a node that was down); each is its own serial.
      while (steps < 1000 && (await this.step(domain, now))) steps++;
    }
    return steps;
  }

  /** One due step of the zone, read and taken under its lock; false when none is due. */
  private async step(domain: StoredDomain, now: number): Promise<boolean> {
    const { value } = await this.writer.write(timerActor(domain.accountId), async (tx) => {
      await tx.lockDomain(domain.id);
      const current = await tx.domainById(domain.id);
      const zone = await tx.dnssecZone(domain.id);
      const keys = await tx.dnssecKeys(domain.id);
      const step = nextDnssecStep(zone, keys, this.timings);
      if (!current || !zone || !step || step.at > now) return noChange(false);
      let after = keys;
      let afterZone = zone;
      let objectId: number = domain.id;
      const what: Record<string, unknown> = { step: step.kind };
      if (step.kind === 'activate') {
        // CDS/CDNSKEY now name the new key; the key they named retires.
        const set = async (k: StoredDnssecKey, state: DnssecKeyState) => {
          await tx.setDnssecKeyState(k.id, state, now);
          return { ...k, state, ...(state === 'active' ? { activeAt: now } : { retiringAt: now }) };
        };
        after = await Promise.all(keys.map((k) => (k.id === step.keyId ? set(k, 'active') : k.state === 'active' ? set(k, 'retiring') : k)));
        objectId = step.keyId;
      } else if (step.kind === 'remove') {
        await tx.deleteDnssecKeys(domain.id, [step.keyId]);
        after = keys.filter((k) => k.id !== step.keyId);
        objectId = step.keyId;
      } else {
        await tx.deleteDnssecKeys(domain.id);
        afterZone = { ...zone, status: 'off', since: now };
        await tx.saveDnssecZone(afterZone);
        after = [];
      }
      const journal: JournalEntry[] = [{ action: 'dnssec.step', objectId, before: { ...image(zone, keys), ...what }, after: image(afterZone, after) }];
      return { value: true, change: { domainId: domain.id, domain: current.domain, kind: 'dnssec.changed' }, journal };
    });
    if (value) this.forget(domain.id, (await this.store.dnssecKeys(domain.id)).map((k) => k.id));
    return value;
  }

  /** Null when this node can open the stored keys (or there are none); otherwise why not, for the start-up log. */
  async kekProblem(): Promise<string | null> {
    const sample = await this.store.anyDnssecKey();
    if (!sample) return null;
    try {
      this.privateKey(sample);
      return null;
    } catch (e) {
      return `signed zones cannot be served signed by this node: ${(e as Error).message}`;
    }
  }

  /**
   * What the DNS server signs a master zone with, or null when it is not signed. Private keys are opened
   * with this node's KEK once and kept in memory; a node without the KEK (or with another one) throws.
   */
  async signing(domainId: number): Promise<ZoneSigning | null> {
    const { zone, keys } = await this.stateOf(domainId);
    if (!zone || zone.status === 'off') return null;
    return this.signingOf(zone, keys);
  }

  /** A zone's DNSSEC state and keys as of one moment (outside a writer's transaction). */
  private async stateOf(domainId: number): Promise<{ zone: DnssecZoneState | undefined; keys: StoredDnssecKey[] }> {
    const { zones, keys } = await this.store.dnssecOfDomains(domainId, domainId);
    return { zone: zones[0], keys };
  }

  /** `signing` for the domains with ids `firstId`..`lastId`, read in one store query (the start-up load). */
  async signingOfRange(firstId: number, lastId: number): Promise<(domainId: number) => ZoneSigning | null> {
    const { zones, keys } = await this.store.dnssecOfDomains(firstId, lastId);
    const byDomain = new Map<number, StoredDnssecKey[]>();
    for (const k of keys) byDomain.set(k.domainId, [...(byDomain.get(k.domainId) ?? []), k]);
    const states = new Map(zones.map((z) => [z.domainId, z]));
    return (domainId) => {
      const zone = states.get(domainId);
      return zone && zone.status !== 'off' ? this.signingOf(zone, byDomain.get(domainId) ?? []) : null;
    };
  }

  private signingOf(zone: DnssecZoneState, keys: StoredDnssecKey[]): ZoneSigning {
    this.forget(zone.domainId, keys.map((k) => k.id));
    return {
      // Every key the store holds for a zone is published and signs; states differ only in CDS (model/dnssec.ts).
      keys: keys.map((k) => ({ keyTag: k.keyTag, algorithm: k.algorithm, flags: k.flags, dnskey: k.dnskey, published: true, signs: true, privateKey: this.privateKey(k) })),
      cds: cdsOf(zone, keys),
      dnskeyTtl: this.timings.dnskeyTtl,
    };
  }

  private privateKey(k: StoredDnssecKey): KeyObject {
    const cached = this.opened.get(k.id);
    if (cached) return cached.key;
    if (!this.kek) throw new Error(`zone ${k.domainId} is signed, but this node has no key-encryption key (--key-encryption-key-file) to open its keys`);
    let pem: string;
    try {
      pem = openKey(this.kek, k.sealedKey, sealContext(k.domainId, k.algorithm, k.keyTag));
    } catch {
      throw new Error(`the key-encryption key does not open DNSSEC key ${k.id} of zone ${k.domainId}: this node's KEK file is not the one the key was sealed with`);
    }
    const key = createPrivateKey(pem);
    this.opened.set(k.id, { domainId: k.domainId, key });
    return key;
  }

  /** Drops opened keys of the domain that it no longer has. */
  private forget(domainId: number, keep: number[]): void {
    for (const [id, o] of this.opened) if (o.domainId === domainId && !keep.includes(id)) this.opened.delete(id);
  }

  /** A new CSK of the algorithm, its private key sealed. */
  private newKey(domainId: number, algorithm: DnssecAlgorithm, state: DnssecKeyState): DnssecKeyData {
    if (!this.kek) {
      throw new ConflictError(
        'enabled',
        'DNSSEC cannot be used: this server has no key-encryption key to store private keys with. Start it with --key-encryption-key-file FILE (or ZONEHOST_KEK_FILE); see docs/dnssec.md.',
      );
    }
    const pem = generatePrivateKey(algorithm);
    const number = DNSSEC_ALGORITHMS[algorithm];
    const dnskey = dnskeyRdata(CSK_FLAGS, number, dnskeyPublicKey(pem));
    const tag = keyTag(dnskey);
    return { algorithm: number, flags: CSK_FLAGS, dnskey, keyTag: tag, sealedKey: sealKey(this.kek, pem, sealContext(domainId, number, tag)), state };
  }

  private info(domain: StoredDomain, zone: DnssecZoneState | undefined, keys: StoredDnssecKey[]): DnssecInfo {
    const status = zone?.status ?? 'off';
    return {
      domain,
      status,
      algorithm: zone && status !== 'off' ? zone.algorithm : null,
      keys: keys.map(publicKey),
      next: nextDnssecStep(zone, keys, this.timings),
      timings: this.timings,
    };
  }

  /** The actor's master zone; a zone mirror is served as received, so it has no DNSSEC of ours: 404 like any other. */
  private async master(ops: Pick<DomainStore, 'domain'>, actor: Actor, id: number): Promise<StoredDomain> {
    const d = await this.domains.owned(ops, actor, id);
    if (d.kind !== 'master') throw new NotFoundError('domain');
    return d;
  }

  /** For a change to the zone's DNSSEC: the actor's master zone, locked, if the actor's key may manage it. */
  private async lockedMaster(tx: Pick<DomainStore, 'lockDomain' | 'domain'>, actor: Actor, id: number): Promise<StoredDomain> {
    const d = await this.domains.locked(tx, actor, id);
    if (d.kind !== 'master') throw new NotFoundError('domain');
    checkManage(scopeOf(actor), 'DNSSEC');
    return d;
  }
}
