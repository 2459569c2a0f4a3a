/**
 * RRset changes (PATCH's `rrsets`, and a new zone's) as the bulk changes the services apply: each RRset is
 * checked as PowerDNS checks it (absolute names inside the zone, a known type, REPLACE or DELETE, each RRset
 * once, contents in PowerDNS's presentation format, no record twice), then, under the domain's lock, turned
 * into record creates, updates (a TTL) and deletes against the records the zone holds: one write, one serial,
 * one journal entry. The zone's SOA and the configured name servers are the service's: an RRset may name them
 * as they are served, and they stay.
 */
import type { StoredDomain } from '../../model/domain.js';
import { keyOf } from '../../model/labels.js';
import { checkRecord, fromPdns, recordType, SOA_TYPE, toPdns, toV1, type RecordData, type RecordFields, type RecordType, type StoredRecord } from '../../model/records/index.js';
import { defaultTtl, soaOf } from '../../model/zone.js';
import { dataKey } from '../../model/zone-rules.js';
import type { ChangeItem } from '../../services/bulk-changes.js';
import { unprocessable } from './errors.js';
import { canonical, ownerIn } from './names.js';

/** An RRset of a request body, as its schema lets it through. */
export interface RrsetBody {
  name: string;
  type: string;
  changetype?: string;
  ttl?: number | string;
  records?: { content: string; disabled?: boolean }[];
  comments?: unknown[];
}

/** One checked RRset change: the owner name relative to the zone, and for REPLACE the records wanted. */
export interface RrsetChange {
  owner: string;
  type: string;
  /** null: the RRset's records are left as they are (a REPLACE of its comments only). */
  records: RecordData[] | null;
}

const label = (r: RrsetBody) => `RRset ${r.name} IN ${r.type}`;

/**
 * The RRsets of a request checked against the zone `zone` (everything but the zone rules, which the service judges
 * on the zone as the whole change leaves it). `changetype` is required in a PATCH, absent in a new zone's.
 */
export function checkRrsets(bodies: readonly RrsetBody[], zone: string, patch: boolean): RrsetChange[] {
  const seen = new Set<string>();
  return bodies.map((body) => {
    const t = recordType(body.type);
    const type = t?.type ?? body.type;
    const owner = ownerIn(body.name, type, zone);
    const changetype = patch ? (body.changetype ?? '').toUpperCase() : 'REPLACE';
    if (changetype !== 'REPLACE' && changetype !== 'DELETE') throw unprocessable('Changetype not understood');
    const key = `${keyOf(owner)} ${type}`;
    if (seen.has(key)) throw unprocessable(`Duplicate RRset ${body.name} IN ${type} with changetype: ${changetype}`);
    seen.add(key);
    if (!t) throw unprocessable(`${label(body)}: unknown type given`);
    if (changetype === 'DELETE') return { owner, type, records: [] };
    if (body.records === undefined) {
      if (body.comments === undefined) throw unprocessable(`${label(body)}: no records or comments given`);
      return { owner, type, records: null };
    }
    return { owner, type, records: recordsOf(body, t, owner, zone) };
  });
}

/** The records a REPLACE wants, each parsed and checked; a 422 naming the RRset for the first problem. */
function recordsOf(body: RrsetBody, t: RecordType, owner: string, zone: string): RecordData[] {
  const records = body.records ?? [];
  if (records.length > 0 && body.ttl === undefined) throw unprocessable(`${label(body)}: Key 'ttl' not present or not an Integer`);
  const keys = new Set<string>();
  return records.map((r) => {
    if (r.disabled) throw unprocessable(`${label(body)}: zonehost does not keep disabled records; leave the record out instead`);
    let data: RecordFields;
    try {
      data = fromPdns(t, r.content);
    } catch (e) {
      throw unprocessable(`Record ${body.name}/${t.type} '${r.content}': ${(e as Error).message}`);
    }
    const rec: RecordData = { type: t.type, name: owner, ttl: Number(body.ttl ?? 0), data };
    if (t === SOA_TYPE) return rec;
    const problems = checkRecord(rec, { zone });
    if (!problems.empty) throw unprocessable(`Record ${body.name}/${t.type} '${r.content}': ${problems.list.map((p) => p.message).join(' ')}`);
    const key = dataKey(rec);
    if (keys.has(key)) throw unprocessable(`Duplicate record in ${label(body)} with content "${r.content}"`);
    keys.add(key);
    return rec;
  });
}

/**
 * The record changes that make each RRset what it asks, against the zone's records as stored (`stored`, read
 * under the domain's lock). A record the zone already has with the same data stays (its TTL changed if the
 * RRset's differs); the SOA and the configured name servers are the service's and are left out.
 */
export function changeItems(changes: readonly RrsetChange[], stored: readonly StoredRecord[], domain: StoredDomain, nameservers: readonly string[]): ChangeItem[] {
  const items: ChangeItem[] = [];
  const dflt = defaultTtl(domain);
  const served = (ttl: number) => (ttl > 0 ? ttl : dflt);
  for (const change of changes) {
    if (change.records === null) continue;
    if (change.type === SOA_TYPE.type) {
      checkSoa(change, domain, nameservers);
      continue;
    }
    const key = keyOf(change.owner);
    const current = stored.filter((r) => r.type === change.type && keyOf(r.name) === key);
    const byData = new Map(current.map((r) => [dataKey(r), r]));
    for (const rec of withoutServiceNs(change.records, nameservers)) {
      const kept = byData.get(dataKey(rec));
      if (!kept) items.push({ op: 'create', type: rec.type, fields: toV1(rec) });
      else {
        byData.delete(dataKey(rec));
        if (served(kept.ttl) !== served(rec.ttl)) items.push({ op: 'update', type: rec.type, id: kept.id, fields: { ttl: rec.ttl } });
      }
    }
    for (const gone of byData.values()) items.push({ op: 'delete', type: gone.type, id: gone.id, fields: {} });
  }
  return items;
}

/** The records but the apex NS records naming a configured name server (every zone has those; they stay). */
function withoutServiceNs(records: readonly RecordData[], nameservers: readonly string[]): RecordData[] {
  const service = new Set(nameservers.map(keyOf));
  return records.filter((r) => {
    const t = recordType(r.type);
    return !(t?.nameServer && r.name === '' && service.has(keyOf(t.additionalTarget?.(r.data) ?? '')));
  });
}

/** The SOA is the service's: an RRset may give it as served (any serial), or nothing changes. */
function checkSoa(change: RrsetChange, domain: StoredDomain, nameservers: readonly string[]): void {
  const served = soaOf(domain, nameservers);
  const shown = (data: Record<string, unknown>) => toPdns(SOA_TYPE, { ...data, serial: 0 }).toLowerCase();
  const same = change.owner === '' && change.records?.length === 1 && shown(change.records[0]?.data ?? {}) === shown(served.data);
  if (!same) {
    throw unprocessable(
      `RRset ${canonical(domain.domain)} IN SOA: zonehost writes the SOA itself (its serial on every change); change its e-mail address and timers in the zone's settings (interface A or B)`,
    );
  }
}
