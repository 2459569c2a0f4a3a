/**
 * The complete content of one zone: what the DNS server serves and what zone transfers send. Master zones
 * are built from the stored domain and records; zone mirrors keep the copy they pulled, stored as text by
 * serialiseZone() and read back by parseZone().
 */
import type { StoredDomain } from './domain.js';
import { keyOf } from './labels.js';
import { absoluteName } from './names.js';
import { NAME_SERVER_TYPE, nameServerData, recordType, rnameOf, SOA_TYPE, type RecordFields, type Soa, type StoredRecord } from './records/index.js';
import { servedSteering, type ServedSteering } from './steering.js';
import { DEFAULT_TIMERS } from './ttl.js';
import { rrsetKey } from './zone-rules.js';

/** One record of a zone: absolute owner (case kept, no trailing dot), type mnemonic, TTL, the type's fields. */
export interface ZoneRecord {
  name: string;
  type: string;
  ttl: number;
  data: RecordFields;
  /**
   * A master zone's record with steering, as served: what answers choose by (dns/zone/steer.ts); absent for
   * most. Named apart from RecordData's `steering` (the stored form), which zone records are used as.
   */
  steered?: ServedSteering;
}

/** No health check is down: what a zone is built with when none of its records names one. */
export const NONE_DOWN: ReadonlySet<number> = new Set();

export interface ZoneContent {
  /** The SOA record (owner = zone apex). */
  soa: ZoneRecord;
  /** Every other record of the zone, apex NS set first; excludes the SOA. */
  answers: ZoneRecord[];
}

/** RFC 1982 serial comparison: a is newer than b. */
export function serialNewer(a: number, b: number): boolean {
  const d = (a - b) >>> 0;
  return d !== 0 && d < 0x80000000;
}

/** A stored timer or TTL, with 0 standing for the documented default. */
const orDefault = (value: number, dflt: number): number => (value > 0 ? value : dflt);

/** The domain's default TTL (used for records with TTL 0, the SOA and the apex NS set). */
export function defaultTtl(domain: Pick<StoredDomain, 'ttl'>): number {
  return orDefault(domain.ttl, DEFAULT_TIMERS.ttl);
}

/** The SOA timers a domain is served with: its stored ones, 0 standing for the default. */
export function soaTimers(domain: Pick<StoredDomain, 'refresh' | 'retry' | 'expire'>): Pick<Soa, 'refresh' | 'retry' | 'expire' | 'minimum'> {
  return {
    refresh: orDefault(domain.refresh, DEFAULT_TIMERS.refresh),
    retry: orDefault(domain.retry, DEFAULT_TIMERS.retry),
    expire: orDefault(domain.expire, DEFAULT_TIMERS.expire),
    minimum: DEFAULT_TIMERS.minimum,
  };
}

/** The SOA record a master zone is served with. */
export function soaOf(domain: StoredDomain, nameservers: readonly string[]): ZoneRecord {
  const soa: Soa = {
    mname: nameservers[0] ?? domain.domain,
    rname: rnameOf(domain.soaEmail || `hostmaster@${domain.domain}`),
    serial: domain.serial >>> 0,
    ...soaTimers(domain),
  };
  return { type: SOA_TYPE.type, name: domain.domain, ttl: defaultTtl(domain), data: soa };
}

/**
 * A master zone: SOA, apex NS = configured name servers plus the customer's apex NS records (duplicates
 * dropped), then every record. Records of unknown types are skipped. `down`: the ids of the health checks
 * that are down now, which the records' steering is served with.
 */
export function zoneContent(domain: StoredDomain, records: readonly StoredRecord[], nameservers: readonly string[], down: ReadonlySet<number> = NONE_DOWN): ZoneContent {
  const zone = domain.domain;
  const ttl = defaultTtl(domain);
  const answers: ZoneRecord[] = [];
  const apexNs = new Set<string>();
  for (const host of nameservers) {
    apexNs.add(keyOf(host));
    answers.push({ type: NAME_SERVER_TYPE.type, name: zone, ttl, data: nameServerData(host) });
  }
  for (const rec of records) {
    const t = recordType(rec.type);
    if (!t) continue;
    if (t.nameServer && rec.name === '') {
      const host = keyOf(t.additionalTarget?.(rec.data) ?? '');
      if (apexNs.has(host)) continue;
      apexNs.add(host);
    }
    const answer: ZoneRecord = { type: t.type, name: absoluteName(rec.name, zone), ttl: orDefault(rec.ttl, ttl), data: rec.data };
    if (rec.steering) answer.steered = servedSteering(rec.steering, down) as ServedSteering;
    answers.push(answer);
  }
  return { soa: soaOf(domain, nameservers), answers };
}

/**
 * The records with every RRset at the lowest TTL among its records (RFC 2181 5.2; RRSIG records by the type
 * they cover, RFC 4034 3, as a signed master sends them to a mirror): the TTL queries are
 * answered with (buildZone), which transfers and zone files must carry too. Records keep their own TTLs
 * in ZoneContent, which the server's start-up builds for every zone and which buildZone reduces itself.
 */
export function withRRsetTtls(answers: readonly ZoneRecord[]): ZoneRecord[] {
  const lowest = new Map<string, number>();
  for (const a of answers) {
    const key = ttlKey(a);
    if (a.ttl < (lowest.get(key) ?? Infinity)) lowest.set(key, a.ttl);
  }
  return answers.map((a) => {
    const ttl = lowest.get(ttlKey(a)) as number;
    return ttl === a.ttl ? a : { ...a, ttl };
  });
}

/** The records that share one TTL: an RRset, or the part of it its type groups (a mirror's RRSIG records by type covered). */
function ttlKey(a: ZoneRecord): string {
  const group = recordType(a.type)?.ttlGroup;
  return group ? `${rrsetKey(a)} ${group(a.data)}` : rrsetKey(a);
}

/** Text form of a zone (for a mirror's last good copy). */
export function serialiseZone(content: ZoneContent): string {
  return JSON.stringify(content);
}

/**
 * A zone without steering as compact text (the DNS server keeps zones no query has asked for yet so; never
 * stored): JSON of [apex, [type, owner, TTL, fields]…], the SOA first, owners within the zone made relative
 * ('' the apex; a name outside it after a dot, which starts no name). About half of serialiseZone's text.
 */
export function packZone(content: ZoneContent): string {
  const apex = content.soa.name;
  const tail = apex.length + 1;
  const owner = (name: string) => (name === apex ? '' : name.length > tail && name.endsWith(apex) && name[name.length - tail] === '.' ? name.slice(0, -tail) : `.${name}`);
  // Joined from the records' own JSON: one flat string, where JSON.stringify of the whole gives a tree of
  // concatenated pieces that takes a third more memory.
  const parts = [`[${JSON.stringify(apex)}`];
  for (const a of [content.soa, ...content.answers]) parts.push(JSON.stringify([a.type, owner(a.name), a.ttl, a.data]));
  parts[parts.length - 1] += ']';
  return parts.join(',');
}

/** packZone's text back as the content it was made from. */
export function unpackZone(text: string): ZoneContent {
  const [apex, ...packed] = JSON.parse(text) as [string, ...[string, string, number, RecordFields][]];
  const records = packed.map(([type, owner, ttl, data]): ZoneRecord => ({ type, name: owner === '' ? apex : owner.startsWith('.') ? owner.slice(1) : `${owner}.${apex}`, ttl, data }));
  const [soa, ...answers] = records as [ZoneRecord, ...ZoneRecord[]];
  return { soa, answers };
}

/** Reads serialiseZone's text back; throws when it is not a zone with an SOA. */
export function parseZone(text: string): ZoneContent {
  const parsed = JSON.parse(text) as Partial<ZoneContent> | null;
  const isRecord = (a: unknown): a is ZoneRecord => {
    const r = a as Partial<ZoneRecord> | null;
    return !!r && typeof r.type === 'string' && typeof r.name === 'string' && typeof r.ttl === 'number' && !!r.data && typeof r.data === 'object';
  };
  if (!parsed || !isRecord(parsed.soa) || parsed.soa.type !== SOA_TYPE.type || !Array.isArray(parsed.answers) || !parsed.answers.every(isRecord)) {
    throw new Error('not a serialised zone');
  }
  return { soa: parsed.soa, answers: parsed.answers };
}
