/**
 * Zone files in and out of a master domain (`services.zonefiles`): the export is the zone as served
 * (model/zone.ts's zoneContent written by model/zonefile.ts), and an import makes the domain's records
 * exactly the file's, in one write: the difference by wire-data identity (zone-rules.ts's dataKey), applied
 * by record-batch.ts's applyBatch (zone rules judged after all of it, the record limit, one `record.batch`
 * journal entry), the SOA's e-mail, timers and TTL in the same write, and one serial increase.
 *
 * SOA: the file's RNAME is the domain's SOA e-mail, its refresh, retry and expire the domain's timers, and
 * its TTL the domain's default TTL (rounded as every TTL). Its MNAME (the service's first name server), its
 * serial (which only grows) and its minimum (the service's negative-caching TTL) are not taken. A file
 * without an SOA keeps the domain's settings. A value the file gives that the domain already serves (0 =
 * the default, served as that default) is left as stored.
 *
 * TTLs: a record whose TTL, after rounding, is the domain's default TTL is stored with TTL 0 (it follows the
 * default); others keep their own. A record already in the zone with the same data stays as it is (the same
 * id) when it is served with the TTL the file gives; otherwise only its TTL changes (`changed`).
 *
 * Import by AXFR (`transfer`): the zone pulled from the customer's current provider through a ZoneSource
 * (the DNS side's AXFR client, given to Services by server.ts: services do not reach the network
 * themselves), to a destination ImportDestinations allows, one transfer at a time per account, bounded in
 * time, bytes and records. The DNSSEC records a signed primary sends are dropped (the zone is signed here,
 * by us, when DNSSEC is on). What it received is written as a master file (model/zonefile.ts) and imported
 * as a PUT of that file would be: the same checks, the same difference, the same write.
 */
import { DOMAIN_DEFAULTS, withoutSecrets, type DomainData, type StoredDomain } from '../model/domain.js';
import { ConflictError, LimitError, Problems, ZoneHostError } from '../model/errors.js';
import type { RecordData, StoredRecord } from '../model/records/index.js';
import { MAX_TTL, roundTtl } from '../model/ttl.js';
import { defaultTtl, soaTimers, zoneContent, type ZoneContent } from '../model/zone.js';
import { dataKey } from '../model/zone-rules.js';
import { checkKeyFields, type TsigKeyRef } from '../model/tsig-key.js';
import { checkFileRecords, MAX_LINE_PROBLEMS, parseZoneFile, zoneFile, ZoneFileError, type FileSoa, type LineProblem } from '../model/zonefile.js';
import { DEFAULT_TRANSFER_PORT, ImportDestinations } from './import-destinations.js';
import type { DomainStore } from '../store/domains.js';
import type { AccountStore } from '../store/accounts.js';
import type { RecordStore } from '../store/records.js';
import { checkManage, checkRecordWrite, checkWrite, type KeyScope } from '../model/key-scope.js';
import { accountLimits, scopeOf, type Actor, type Limits } from './actor.js';
import type { DomainService } from './domains.js';
import { applyBatch, wholeZone } from './record-batch.js';
import type { JournalEntry, ZoneWriter } from './zone-writer.js';

/** The domain settings an import may set from the file's SOA. */
export interface ZoneFileSettings {
  soaEmail: string;
  refresh: number;
  retry: number;
  expire: number;
  ttl: number;
}

/** What an import changes (or, with dryRun, would change). */
export interface ZoneFileDiff {
  /** Records the file adds (with ids after a real import). */
  added: RecordData[] | StoredRecord[];
  /** Records of the zone that the file does not have. */
  removed: StoredRecord[];
  /** Records with the file's data whose TTL changes: as they are and as they become. */
  changed: { before: StoredRecord; after: StoredRecord }[];
  /** Records the file leaves as they are. */
  unchanged: StoredRecord[];
  /** The domain settings after the import, and which of them the file changes. */
  settings: ZoneFileSettings & { changed: (keyof ZoneFileSettings)[] };
}

/** The bounds of one transfer a ZoneSource must keep. */
export interface ZoneSourceLimits {
  /** Records at most, the SOA and the dropped DNSSEC records not counted. */
  maxRecords: number;
  /** The whole transfer, connection included. */
  timeoutMs: number;
  /** Bytes received at most. */
  maxBytes: number;
}

/**
 * Where an import by AXFR gets a zone: implemented by the DNS side (dns/transfer's AXFR client) and given to
 * Services (dependency inversion: services never import the DNS code). `pull` connects to `server` (an IP
 * address already checked by ImportDestinations) on `port`, asks for `zone` by AXFR (signed with `tsig` when
 * given), drops DNSSEC records, and resolves with the zone's SOA and records (absolute names) plus, in
 * `refused`, a sentence for each record received that we do not take (its type, or data the record type's
 * rules refuse); or rejects with an Error saying what the server answered (REFUSED, NOTAUTH, a timeout...).
 */
export interface ZoneSource {
  pull(server: string, port: number, zone: string, tsig: TsigKeyRef | null, limits: ZoneSourceLimits): Promise<ZoneContent & { refused: string[] }>;
}

/** A transfer that did not give a zone: `message` says what the server answered. */
export class ZoneTransferError extends ZoneHostError {
  constructor(
    readonly server: string,
    readonly port: number,
    readonly reason: string,
  ) {
    super(`The transfer from ${server} port ${port} failed: ${reason}. Nothing was written.`);
  }
}

/** An import by AXFR: the server to pull from, its port (53 unless given) and the key it wants, if any. */
export interface TransferRequest {
  server: string;
  port?: number;
  tsig?: { name: string; algorithm: string; secret: string } | null;
}

/** Import-by-AXFR settings: the source, the operator's allowed networks, the bounds. */
export interface TransferOptions {
  /** Without one, imports by AXFR are not available on this node (409). */
  source?: ZoneSource | null;
  /** Networks the operator lets through the destination rules (--import-allow). */
  allow?: readonly string[];
  /** 60 s unless given. */
  timeoutMs?: number;
  /** 64 MiB unless given. */
  maxBytes?: number;
}

export const TRANSFER_TIMEOUT_MS = 60_000;
export const TRANSFER_MAX_BYTES = 64 * 1024 * 1024;

const SETTINGS: (keyof ZoneFileSettings)[] = ['soaEmail', 'refresh', 'retry', 'expire', 'ttl'];

/** A timer or TTL from a file as the domain stores it: rounded up to the allowed set, at most the longest. */
const stored = (seconds: number): number => roundTtl(Math.min(Math.max(seconds, 1), MAX_TTL));
/** A domain timer or TTL as served: 0 stands for the default. */
const served = (value: number, dflt: number): number => (value > 0 ? value : dflt);

/** The domain's settings with the file's SOA laid over them, where the served value differs. */
function settingsOf(domain: StoredDomain, soa: FileSoa | null): { data: DomainData; changed: (keyof ZoneFileSettings)[] } {
  const { id: _i, accountId: _a, serial: _s, ...data } = domain;
  const next: DomainData = { ...data };
  if (soa) {
    if (soa.email.toLowerCase() !== domain.soaEmail.toLowerCase()) next.soaEmail = soa.email;
    // Compared with the SOA served, in which a 0 stored stands for the default.
    const current = soaTimers(domain);
    for (const f of ['refresh', 'retry', 'expire'] as const) {
      const v = stored(soa.data[f]);
      if (v !== current[f]) next[f] = v;
    }
    if (soa.ttl !== null) {
      const v = stored(soa.ttl);
      if (v !== defaultTtl(domain)) next.ttl = v;
    }
  }
  const changed = SETTINGS.filter((f) => next[f] !== data[f]);
  return { data: next, changed };
}

export class ZoneFileService {
  private readonly destinations: ImportDestinations;
  /** Accounts with an import by AXFR under way on this node (one at a time each). */
  private readonly transferring = new Set<number>();

  constructor(
    private readonly store: Pick<RecordStore, 'listRecords'> & Pick<AccountStore, 'accountById'>,
    private readonly writer: ZoneWriter,
    private readonly domains: DomainService,
    private readonly limits: Limits,
    /** The configured name servers: the SOA and apex NS records every zone is served with. */
    private readonly nameservers: readonly string[],
    private readonly transfers: TransferOptions = {},
  ) {
    this.destinations = new ImportDestinations(transfers.allow ?? []);
  }

  /**
   * Imports the zone as `req.server` transfers it by AXFR: checked and written as `import` does a file (or
   * with `dryRun` only the difference). Throws DestinationRefusedError (before any connection) for a server
   * or port the rules refuse, ValidationError for a bad key, ConflictError for a zone mirror, for another
   * transfer of the account under way, or without a ZoneSource; ZoneTransferError when the transfer fails;
   * ZoneFileError (problems naming the received records) when the zone received is not one we take.
   */
  async transfer(actor: Actor, domainId: number, req: TransferRequest, opts: { dryRun?: boolean } = {}): Promise<ZoneFileDiff> {
    const domain = await this.domains.get(actor, domainId);
    refuseMirror(domain);
    // Before any connection: a key that may not write has no business making the service transfer a zone.
    checkWrite(scopeOf(actor));
    const { server, port } = this.destinations.check(req.server, req.port ?? DEFAULT_TRANSFER_PORT);
    let tsig: TsigKeyRef | null = null;
    if (req.tsig) {
      const key = { ...req.tsig };
      const p = new Problems();
      checkKeyFields(p, 'tsig.', key);
      p.throwIfAny();
      tsig = key as TsigKeyRef;
    }
    const source = this.transfers.source;
    if (!source) throw new ConflictError(null, 'Imports by AXFR are not available on this node.');
    const account = domain.accountId;
    if (this.transferring.has(account)) {
      throw new ConflictError(null, 'Another import by AXFR of this account is under way; try again when it has ended (each takes at most a minute).');
    }
    this.transferring.add(account);
    try {
      let content: ZoneContent & { refused: string[] };
      try {
        content = await source.pull(server, port, domain.domain, tsig, {
          maxRecords: (await accountLimits(this.store, this.limits, domain.accountId)).recordsPerDomain,
          timeoutMs: this.transfers.timeoutMs ?? TRANSFER_TIMEOUT_MS,
          maxBytes: this.transfers.maxBytes ?? TRANSFER_MAX_BYTES,
        });
      } catch (e) {
        throw new ZoneTransferError(server, port, e instanceof Error ? e.message : String(e));
      }
      if (content.refused.length > 0) throw new ZoneFileError(content.refused.slice(0, MAX_LINE_PROBLEMS).map((message) => ({ line: 0, message })));
      let text: string;
      try {
        text = zoneFile(content);
      } catch (e) {
        throw new ZoneTransferError(server, port, `a record cannot be taken: ${(e as Error).message}`);
      }
      try {
        return await this.import(actor, domainId, text, opts);
      } catch (e) {
        if (!(e instanceof ZoneFileError)) throw e;
        // Problems name the record received (the line of the file it was written as), not a line number.
        const lines = text.split('\n');
        throw new ZoneFileError(e.problems.map((p) => ({ line: p.line, message: `${(lines[p.line - 1] ?? '').replaceAll('\t', ' ')}: ${p.message}` })));
      }
    } finally {
      this.transferring.delete(account);
    }
  }

  /** The domain's zone as served, as a master file. */
  async export(actor: Actor, domainId: number): Promise<string> {
    const domain = await this.domains.get(actor, domainId);
    refuseMirror(domain);
    return zoneFile(zoneContent(domain, await this.store.listRecords(domain.id), this.nameservers));
  }

  /**
   * Makes the domain's records those of `text` (a master file), or with `dryRun` only says what that would
   * change. Throws ZoneFileError naming every bad line (nothing written), a ConflictError for a zone mirror,
   * a LimitError when the file holds more records than a domain may.
   */
  async import(actor: Actor, domainId: number, text: string, opts: { dryRun?: boolean } = {}): Promise<ZoneFileDiff> {
    const first = await this.domains.get(actor, domainId);
    refuseMirror(first);
    const scope = scopeOf(actor);
    checkWrite(scope);
    const parsed = parseZoneFile(text, first.domain);
    const checked = checkFileRecords(parsed.records, first.domain, this.nameservers);
    const problems = [...parsed.problems, ...checked.problems].sort((a, b) => a.line - b.line);
    if (problems.length > 0) throw new ZoneFileError(capped(problems));
    const { recordsPerDomain } = await accountLimits(this.store, this.limits, first.accountId);
    if (checked.records.length > recordsPerDomain) {
      throw new LimitError('records', `The file holds ${checked.records.length} records; a domain may hold at most ${recordsPerDomain}.`);
    }
    const fileRecords = checked.records.map((r) => r.record);
    if (opts.dryRun) return inScope(scope, plan(first, await this.store.listRecords(first.id), fileRecords, parsed.soa));
    const { value } = await this.writer.write(actor, async (tx, now) => {
      const domain = await this.domains.locked(tx, actor, domainId);
      refuseMirror(domain);
      if (domain.domain !== first.domain) throw new ConflictError(null, 'The domain was renamed while the file was read; send it again.');
      const current = await tx.listRecords(domain.id);
      const diff = inScope(scope, plan(domain, current, fileRecords, parsed.soa));
      const journal: JournalEntry[] = [];
      if (diff.settings.changed.length > 0) journal.push(await updateSettings(tx, domain, diff.settings, now));
      const result = await applyBatch(
        tx,
        domain,
        { remove: diff.removed, change: diff.changed.map((c) => ({ before: c.before, after: c.after })), add: diff.added },
        this.limits,
        now,
        // The zone after the import is the file's records, whose rules checkFileRecords judged line by line.
        wholeZone(current, true),
      );
      if (result.journal) journal.push(result.journal);
      const out: ZoneFileDiff = { ...diff, added: result.added };
      if (journal.length === 0) return { value: out, change: null, journal: [] };
      const kind = diff.settings.changed.length > 0 ? 'domain.updated' : 'records.changed';
      return { value: out, change: { domainId: domain.id, domain: domain.domain, kind, previousDomain: domain.domain }, journal };
    });
    return value;
  }
}

/** The diff when the key's scope allows all of it (a dry run is refused as the import would be). */
function inScope(scope: KeyScope, diff: ZoneFileDiff): ZoneFileDiff {
  for (const r of [...diff.added, ...diff.removed, ...diff.changed.flatMap((c) => [c.before, c.after])]) checkRecordWrite(scope, r.name, r.type);
  if (diff.settings.changed.length > 0) checkManage(scope, 'domain settings (the file\'s SOA changes them)');
  return diff;
}

function refuseMirror(domain: StoredDomain): void {
  if (domain.kind !== 'master') {
    throw new ConflictError(null, `${domain.domain} is a zone mirror: its records come from its masters by zone transfer, so it has no zone file to import or export here.`);
  }
}

/** At most MAX_LINE_PROBLEMS problems, the last saying how many more lines are bad. */
function capped(problems: LineProblem[]): LineProblem[] {
  if (problems.length <= MAX_LINE_PROBLEMS) return problems;
  const more = problems.length - MAX_LINE_PROBLEMS;
  const last = problems[MAX_LINE_PROBLEMS] as LineProblem;
  return [...problems.slice(0, MAX_LINE_PROBLEMS), { line: last.line, message: `and ${more} more problems from this line on (not listed)` }];
}

/** The difference between the zone's records and the file's, and the settings the file's SOA gives. */
function plan(domain: StoredDomain, current: readonly StoredRecord[], file: readonly RecordData[], soa: FileSoa | null): ZoneFileDiff {
  const settings = settingsOf(domain, soa);
  const ttl = defaultTtl(settings.data);
  const wanted = new Map<string, RecordData>();
  for (const r of file) wanted.set(dataKey(r), { ...r, ttl: r.ttl === ttl ? 0 : r.ttl });
  const removed: StoredRecord[] = [];
  const changed: { before: StoredRecord; after: StoredRecord }[] = [];
  const unchanged: StoredRecord[] = [];
  for (const rec of current) {
    const key = dataKey(rec);
    const w = wanted.get(key);
    if (!w) {
      removed.push(rec);
      continue;
    }
    wanted.delete(key);
    if (served(rec.ttl, ttl) === served(w.ttl, ttl)) unchanged.push(rec);
    else changed.push({ before: rec, after: { ...rec, ttl: w.ttl } });
  }
  const data = settings.data;
  const out: ZoneFileSettings = { soaEmail: data.soaEmail, refresh: data.refresh, retry: data.retry, expire: data.expire, ttl: data.ttl };
  return { added: [...wanted.values()], removed, changed, unchanged, settings: { ...out, changed: settings.changed } };
}

/** Writes the settings the file's SOA changed, journaled as a domain update. */
async function updateSettings(tx: Pick<DomainStore, 'updateDomain'>, domain: StoredDomain, settings: ZoneFileSettings, now: number): Promise<JournalEntry> {
  const { id: _i, accountId: _a, serial: _s, ...before } = domain;
  const data: DomainData = { ...DOMAIN_DEFAULTS, ...before, ...pick(settings) };
  await tx.updateDomain(domain.id, data, now);
  return { action: 'domain.update', objectId: domain.id, before: withoutSecrets(before), after: withoutSecrets(data) };
}

const pick = (s: ZoneFileSettings): Pick<DomainData, keyof ZoneFileSettings> => ({ soaEmail: s.soaEmail, refresh: s.refresh, retry: s.retry, expire: s.expire, ttl: s.ttl });
