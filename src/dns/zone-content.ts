/**
 * The complete content of one zone in dns-packet's answer shape: what the DNS server serves and what
 * zone transfers send. Master zones are built from the stored domain and records; zone mirrors keep the
 * copy they pulled, stored as text by serialiseZone() and read back by parseZone().
 */
import type * as dnsPacket from 'dns-packet';
import type { StoredDomain } from '../model/domain.js';
import { absoluteName } from '../model/names.js';
import { recordType, type StoredRecord } from '../model/records/index.js';
import { DEFAULT_TIMERS } from '../model/ttl.js';
import { keyOf } from './wire.js';

export interface ZoneContent {
  /** The SOA record (owner = zone apex). */
  soa: dnsPacket.Answer;
  /** Every other record of the zone, apex NS set first; excludes the SOA. */
  answers: dnsPacket.Answer[];
}

/** A stored timer or TTL, with 0 standing for the documented default. */
const orDefault = (value: number, dflt: number): number => (value > 0 ? value : dflt);

/** The domain's default TTL (used for records with TTL 0, the SOA and the apex NS set). */
export function defaultTtl(domain: Pick<StoredDomain, 'ttl'>): number {
  return orDefault(domain.ttl, DEFAULT_TIMERS.ttl);
}

/** The SOA RNAME of an e-mail address: local part dots escaped, as dns-packet's mail encoding expects. */
export function rnameOf(email: string): string {
  const at = email.lastIndexOf('@');
  if (at <= 0) return `hostmaster.${email}`;
  return `${email.slice(0, at).replace(/\./g, '\\.')}.${email.slice(at + 1)}`;
}

export function soaOf(domain: StoredDomain, nameservers: readonly string[]): dnsPacket.Answer {
  return {
    type: 'SOA',
    class: 'IN',
    name: domain.domain,
    ttl: defaultTtl(domain),
    data: {
      mname: nameservers[0] ?? domain.domain,
      rname: rnameOf(domain.soaEmail || `hostmaster@${domain.domain}`),
      serial: domain.serial >>> 0,
      refresh: orDefault(domain.refresh, DEFAULT_TIMERS.refresh),
      retry: orDefault(domain.retry, DEFAULT_TIMERS.retry),
      expire: orDefault(domain.expire, DEFAULT_TIMERS.expire),
      minimum: DEFAULT_TIMERS.minimum,
    },
  };
}

/**
 * A master zone: SOA, apex NS = configured name servers plus the customer's apex NS records (duplicates
 * dropped), then every record through its type module's toWire. Records of unknown types are skipped.
 */
export function zoneContent(domain: StoredDomain, records: readonly StoredRecord[], nameservers: readonly string[]): ZoneContent {
  const zone = domain.domain;
  const ttl = defaultTtl(domain);
  const answers: dnsPacket.Answer[] = [];
  const apexNs = new Set<string>();
  for (const ns of nameservers) {
    apexNs.add(ns.toLowerCase());
    answers.push({ type: 'NS', class: 'IN', name: zone, ttl, data: ns });
  }
  for (const rec of records) {
    const t = recordType(rec.type);
    if (!t) continue;
    if (t.type === 'NS' && rec.name === '' && apexNs.has(rec.target.toLowerCase())) continue;
    if (t.type === 'NS' && rec.name === '') apexNs.add(rec.target.toLowerCase());
    answers.push({
      type: t.type,
      class: 'IN',
      name: absoluteName(rec.name, zone),
      ttl: orDefault(rec.ttl, ttl),
      data: t.toWire(rec, zone),
    } as dnsPacket.Answer);
  }
  return { soa: soaOf(domain, nameservers), answers };
}

/** Which RRset a record belongs to: its owner (letter case aside) and type. */
export const rrsetKey = (a: { name: string; type: string }): string => `${keyOf(a.name)} ${a.type}`;

/** A record's TTL (dns-packet's OPT pseudo-record has none, and zones hold no OPT). */
export const ttlOf = (a: dnsPacket.Answer): number => (a as { ttl?: number }).ttl ?? 0;

/**
 * The records with every RRset at the lowest TTL among its records (RFC 2181 5.2): the TTL queries are
 * answered with (buildZone), which transfers and zone files must carry too. Records keep their own TTLs
 * in ZoneContent, which the server's start-up builds for every zone and which buildZone reduces itself.
 */
export function withRRsetTtls(answers: readonly dnsPacket.Answer[]): dnsPacket.Answer[] {
  const lowest = new Map<string, number>();
  for (const a of answers) {
    const key = rrsetKey(a);
    const ttl = ttlOf(a);
    if (ttl < (lowest.get(key) ?? Infinity)) lowest.set(key, ttl);
  }
  return answers.map((a) => {
    const ttl = lowest.get(rrsetKey(a));
    return ttl === ttlOf(a) ? a : { ...a, ttl };
  });
}

/** Buffers travel through JSON as base64 under this key. */
const B64 = '$b64';

/** Text form of a zone (for a mirror's last good copy): JSON with every Buffer as base64. */
export function serialiseZone(content: ZoneContent): string {
  return JSON.stringify(content, (_key, value: unknown) => {
    const v = value as { type?: unknown; data?: unknown } | null;
    if (v && typeof v === 'object' && v.type === 'Buffer' && Array.isArray(v.data)) {
      return { [B64]: Buffer.from(v.data as number[]).toString('base64') };
    }
    return value;
  });
}

/** Reads serialiseZone's text back; throws when it is not a zone with an SOA. */
export function parseZone(text: string): ZoneContent {
  const parsed = JSON.parse(text, (_key, value: unknown) => {
    const v = value as Record<string, unknown> | null;
    if (v && typeof v === 'object' && !Array.isArray(v) && typeof v[B64] === 'string' && Object.keys(v).length === 1) {
      return Buffer.from(v[B64], 'base64');
    }
    return value;
  }) as Partial<ZoneContent> | null;
  const isAnswer = (a: unknown): a is dnsPacket.Answer => {
    const r = a as { type?: unknown; name?: unknown; ttl?: unknown } | null;
    return !!r && typeof r.type === 'string' && typeof r.name === 'string' && typeof r.ttl === 'number';
  };
  if (!parsed || !isAnswer(parsed.soa) || parsed.soa.type !== 'SOA' || !Array.isArray(parsed.answers) || !parsed.answers.every(isAnswer)) {
    throw new Error('not a serialised zone');
  }
  return { soa: parsed.soa, answers: parsed.answers };
}
