/**
 * Zone transfers out: AXFR (RFC 5936) and IXFR (RFC 1995) to the addresses in a domain's `axfr` list.
 * IXFR is answered from the change journal when every change since the client's serial is a record
 * change (the SOA and default TTL are then the same throughout); otherwise with the whole zone.
 */
import type * as dnsPacket from 'dns-packet';
import { isServed, type StoredDomain } from '../../model/domain.js';
import { absoluteName, normalizeZoneName } from '../../model/names.js';
import type { StoredRecord } from '../../model/records/index.js';
import type { Services } from '../../services/index.js';
import type { ChangeRow } from '../../store/store.js';
import { dataKey } from '../../model/zone-rules.js';
import { rrsetKey, soaOf, withRRsetTtls, zoneContent, type ZoneRecord } from '../../model/zone.js';
import { RCODE } from '../message.js';
import { addressIn, response, responses, serialNewer, soaData } from './wire.js';

export interface TransferRequest {
  services: Services;
  query: dnsPacket.Packet;
  raw: Buffer;
  remoteAddress: string;
  transport: 'udp' | 'tcp';
  nameservers: string[];
}

/** Answers an AXFR or IXFR query: one or more complete DNS messages. */
export async function handleTransfer(req: TransferRequest): Promise<Buffer[]> {
  const { services, query } = req;
  const question = query.questions?.[0];
  if (!question || (question.type !== 'AXFR' && question.type !== 'IXFR') || (query.questions?.length ?? 0) !== 1) {
    return [response(query, RCODE.FORMERR)];
  }
  // AXFR is defined over TCP only (RFC 5936 4.2); said before any lookup, as UDP senders may be forged.
  if (question.type === 'AXFR' && req.transport === 'udp') return [response(query, RCODE.FORMERR)];
  const zone = normalizeZoneName(question.name);
  const domain = await services.zones.byName(zone);
  if (!domain || !isServed(domain.status) || !addressIn(domain.axfrIps, req.remoteAddress)) {
    return [response(query, RCODE.REFUSED)];
  }

  let clientSerial: number | null = null;
  if (question.type === 'IXFR') {
    const clientSoa = (query.authorities ?? []).find((a) => a.type === 'SOA');
    if (!clientSoa) return [response(query, RCODE.FORMERR)];
    clientSerial = soaData(clientSoa).serial;
  }
  const snapshot = await services.zones.snapshot(domain, req.nameservers, clientSerial);
  if (!snapshot) return [response(query, RCODE.SERVFAIL)];
  // With the TTLs queries get, whatever the stored records (or a mirror's master) gave each record of a set.
  const content = { soa: snapshot.content.soa, answers: withRRsetTtls(snapshot.content.answers) };
  const current = soaData(content.soa).serial;

  if (clientSerial !== null) {
    // Up to date (or ahead): the current SOA alone says so. Over UDP the same single SOA asks the
    // client to come back over TCP when there is more to send (RFC 1995 section 2).
    if (!serialNewer(current, clientSerial) || req.transport === 'udp') {
      return responses(query, RCODE.NOERROR, [content.soa]);
    }
    const { journal } = snapshot;
    const diffs = journal ? incremental(snapshot.domain, journal.records, journal.changes, clientSerial, req.nameservers, content.answers.length) : null;
    if (diffs) return responses(query, RCODE.NOERROR, [content.soa, ...diffs, content.soa]);
  }
  return responses(query, RCODE.NOERROR, [content.soa, ...content.answers, content.soa]);
}

/** The records of `from` whose data is not in `other`, each data once: an RRset holds a data once, as a secondary compares them. */
function minus(from: readonly ZoneRecord[], other: readonly ZoneRecord[]): ZoneRecord[] {
  const seen = new Set(other.map(dataKey));
  const out: ZoneRecord[] = [];
  for (const a of from) {
    const key = dataKey(a);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(a);
  }
  return out;
}

/**
 * The IXFR difference sequences from `clientSerial` to the domain's serial, or null when the journal
 * cannot say (serial unknown to us, or a change other than to records in between) or when there are more
 * changes than records, so the whole zone is the shorter answer.
 *
 * Each version's sequence is worked out per RRset it touched, from the set as served before and after:
 * one TTL for the whole set (RFC 2181 5.2), so when a change moves that TTL, every record of the old set
 * is deleted and every record of the new one added. A secondary applying the differences then holds
 * exactly the records and TTLs an AXFR sends.
 */
function incremental(
  domain: StoredDomain,
  records: readonly StoredRecord[],
  changes: ChangeRow[],
  clientSerial: number,
  nameservers: readonly string[],
  zoneSize: number,
): ZoneRecord[] | null {
  if (!changes.some((c) => c.serial === clientSerial)) return null;
  const later = changes.filter((c) => serialNewer(c.serial, clientSerial));
  if (later.length === 0 || later.length > zoneSize || later.some((c) => !c.action.startsWith('record.'))) return null;
  if (later[later.length - 1]?.serial !== domain.serial) return null;
  const keyOfRecord = (r: StoredRecord) => rrsetKey({ name: absoluteName(r.name, domain.domain), type: r.type });
  // The records by RRset, as they stood at the client's serial: the current ones with every later change undone.
  const sets = new Map<string, Map<number, StoredRecord>>();
  const put = (r: StoredRecord) => {
    const key = keyOfRecord(r);
    const set = sets.get(key);
    if (set) set.set(r.id, r);
    else sets.set(key, new Map([[r.id, r]]));
  };
  const drop = (r: StoredRecord) => sets.get(keyOfRecord(r))?.delete(r.id);
  const apply = (c: ChangeRow, forward: boolean) => {
    const [gone, come] = (forward ? [c.before, c.after] : [c.after, c.before]) as (StoredRecord | null)[];
    if (gone) drop(gone);
    if (come) put(come);
  };
  for (const r of records) put(r);
  for (let j = later.length - 1; j >= 0; j--) apply(later[j] as ChangeRow, false);
  // One RRset as served (the apex NS set includes the configured name servers).
  const served = (key: string) => withRRsetTtls(zoneContent(domain, [...(sets.get(key)?.values() ?? [])], nameservers).answers.filter((a) => rrsetKey(a) === key));
  const out: ZoneRecord[] = [];
  let from = clientSerial;
  let i = 0;
  while (i < later.length) {
    const serial = later[i]?.serial as number;
    const version: ChangeRow[] = [];
    for (; i < later.length && later[i]?.serial === serial; i++) version.push(later[i] as ChangeRow);
    const touched = new Set<string>();
    for (const c of version) for (const r of [c.before, c.after] as (StoredRecord | null)[]) if (r) touched.add(keyOfRecord(r));
    const old = new Map([...touched].map((key) => [key, served(key)]));
    for (const c of version) apply(c, true);
    const removed: ZoneRecord[] = [];
    const added: ZoneRecord[] = [];
    for (const [key, was] of old) {
      const now = served(key);
      const ttlMoved = was.length > 0 && now.length > 0 && was[0]?.ttl !== now[0]?.ttl;
      removed.push(...(ttlMoved ? was : minus(was, now)));
      added.push(...(ttlMoved ? now : minus(now, was)));
    }
    out.push(soaOf({ ...domain, serial: from }, nameservers), ...removed, soaOf({ ...domain, serial }, nameservers), ...added);
    from = serial;
  }
  return out;
}
