/** The core: every interface (A, B, DNS, command line) goes through these services. */
import type { Store } from '../store/store.js';
import { DEFAULT_LIMITS, type Limits } from './actor.js';
import { AccountService } from './accounts.js';
import { AliasService } from './aliases.js';
import { AuditService } from './audit.js';
import { CatalogService, type CatalogOptions } from './catalog.js';
import { CookieSecretService } from './cookie-secrets.js';
import { BulkChangeService } from './bulk-changes.js';
import { DnssecService, type DnssecOptions } from './dnssec.js';
import { DomainCopyService } from './domain-copies.js';
import { DomainService } from './domains.js';
import { MemberService } from './members.js';
import { HealthCheckService } from './health-checks.js';
import { Metrics } from './metrics.js';
import { ZoneEventBus } from './zone-events.js';
import { MirrorService } from './mirrors.js';
import { OperatorService } from './operator.js';
import { PasskeyService, type WebAuthnOptions } from './passkeys.js';
import { PasswordChangeService } from './password-change.js';
import { RecordService } from './records.js';
import { SecondFactorService } from './second-factors.js';
import { LoginThrottle } from './throttle.js';
import { TsigKeyService } from './tsig-keys.js';
import { UpdateService } from './updates.js';
import { ZoneWriter } from './zone-writer.js';
import { ZoneService } from './zones.js';
import { ZoneFileService, type TransferOptions } from './zonefiles.js';

export type { Actor, Limits } from './actor.js';
export { ZoneEventBus } from './zone-events.js';
export type { ZoneSource, ZoneSourceLimits, TransferOptions } from './zonefiles.js';
export type { CatalogOptions } from './catalog.js';
export type { WebAuthnOptions, RequestSite } from './passkeys.js';

export class Services {
  readonly bus = new ZoneEventBus();
  readonly writer: ZoneWriter;
  readonly accounts: AccountService;
  /** An account's members: invitations, roles and domains, removal. */
  readonly members: MemberService;
  /** TOTP and recovery codes, what sign-ins ask of users who have them, and require_2fa. */
  readonly factors: SecondFactorService;
  /** Passkeys: registered by a signed-in user, used to sign in to the panel. */
  readonly passkeys: PasskeyService;
  /** A user changing their own password. */
  readonly passwords: PasswordChangeService;
  /** The operator's controls over accounts: list, suspend and resume, limits, delete (the command line). */
  readonly operator: OperatorService;
  readonly domains: DomainService;
  readonly records: RecordService;
  /** Bulk record changes to one zone, all or none. */
  readonly changes: BulkChangeService;
  readonly mirrors: MirrorService;
  /** TSIG keys: interface B manages them, the DNS side finds them by name. */
  readonly tsigKeys: TsigKeyService;
  /** DNS UPDATE (RFC 2136) messages signed with a TSIG key. */
  readonly updates: UpdateService;
  /** DNSSEC keys and states of master zones (the DNS side reads them through `zones`). */
  readonly dnssec: DnssecService;
  /** Zones as served, for the DNS side. */
  readonly zones: ZoneService;
  /** The catalog zone (RFC 9432) listing every served zone, when configured; the DNS side reads it through `zones`. */
  readonly catalog: CatalogService | null;
  readonly audit: AuditService;
  readonly metrics: Metrics;
  /** The secrets of DNS server cookies, the same on every node. */
  readonly cookieSecrets: CookieSecretService;
  /** Zone files: a master domain's export, and imports that make its records a file's. */
  readonly zonefiles: ZoneFileService;
  /** New serials for new addresses of ALIAS targets (the DNS side resolves them). */
  readonly aliases: AliasService;
  /** New domains made from existing zones: a clone of one of the account's, an import by AXFR. */
  readonly copies: DomainCopyService;
  /** The configured name servers: every master zone's SOA and apex NS (model/zone.ts's zoneContent). */
  readonly nameservers: readonly string[];
  /** Health checks, which records' steering follows (the leader runs them: health-runner.ts). */
  readonly healthChecks: HealthCheckService;

  constructor(
    readonly store: Store,
    readonly limits: Limits = DEFAULT_LIMITS,
    readonly now: () => number = Date.now,
    dnssec: DnssecOptions = { kek: null },
    /** The configured name servers (every master zone's SOA and apex NS), which zone files leave to the service. */
    nameservers: readonly string[] = [],
    /** Imports by AXFR: the DNS side's AXFR client (none: not available) and the operator's allowed networks. */
    transfers: TransferOptions = {},
    /** The catalog zone (--catalog) and its secondaries; null for none. */
    catalog: CatalogOptions | null = null,
    /** The passkeys' relying party and origins where the operator fixed them (--webauthn-rp-id, --webauthn-origin). */
    webauthn: WebAuthnOptions = {},
    /** Networks health checks may probe although not public (--healthcheck-allow). */
    healthcheckAllow: readonly string[] = [],
  ) {
    this.nameservers = nameservers;
    this.writer = new ZoneWriter(store, this.bus, now);
    // One throttle: wrong codes and failed passkey sign-ins count as wrong passwords do.
    const throttle = new LoginThrottle();
    this.factors = new SecondFactorService(store, now, throttle, dnssec.kek);
    this.accounts = new AccountService(store, limits, now, throttle, this.factors);
    this.passkeys = new PasskeyService(store, this.accounts, now, throttle, webauthn);
    this.passwords = new PasswordChangeService(store, this.accounts, now);
    this.members = new MemberService(store, now);
    this.operator = new OperatorService(store, this.writer, now);
    this.catalog = catalog && new CatalogService(store, this.bus, catalog);
    this.domains = new DomainService(store, this.writer, limits, this.catalog);
    this.records = new RecordService(store, this.writer, this.domains, limits);
    this.changes = new BulkChangeService(this.writer, this.domains, limits);
    this.mirrors = new MirrorService(store, this.domains, this.bus, now, limits);
    this.tsigKeys = new TsigKeyService(store, this.domains, limits, now);
    this.updates = new UpdateService(this.writer, limits);
    this.dnssec = new DnssecService(store, this.writer, this.domains, this.bus, dnssec);
    this.zones = new ZoneService(store, now, this.dnssec, this.catalog);
    this.audit = new AuditService(store);
    this.metrics = new Metrics(this.bus, now);
    this.cookieSecrets = new CookieSecretService(store, now);
    this.zonefiles = new ZoneFileService(store, this.writer, this.domains, limits, nameservers, transfers);
    this.aliases = new AliasService(this.writer);
    this.copies = new DomainCopyService(this.domains, this.records, this.changes, this.zonefiles);
    this.healthChecks = new HealthCheckService(store, this.writer, now, healthcheckAllow);
  }
}
