/**
 * The AXFR client (RFC 5936): pulls a whole zone from a primary over TCP, TSIG-signed when a key is given,
 * bounded in time, bytes and records, and checks every record through the registry. Zone mirrors
 * (./mirror.ts) and imports by AXFR (ZoneSource in ./index.ts) both use it.
 */
import { randomInt } from 'node:crypto';
import type * as dnsPacket from 'dns-packet';
import * as packet from 'dns-packet';
import { absoluteName, MAX_NAME_LENGTH, relativeName } from '../../model/names.js';
import { checkRecord, recordType, SOA_TYPE, soaData, type RecordData } from '../../model/records/index.js';
import type { MasterTlsAuth } from '../../model/domain.js';
import type { TsigKeyRef } from '../../model/tsig-key.js';
import { checkZone } from '../../model/zone-rules.js';
import { wireTtl } from '../../model/ttl.js';
import type { ZoneContent, ZoneRecord } from '../../model/zone.js';
import { CLASS_IN, OPCODE } from '../wire/message.js';
import { SignedExchange, tsigSecret } from '../wire/tsig.js';
import { decodeStrict, queryFlags, rcodeOf, receivedAnswers, tcpExchange, type ReceivedRecord } from './wire.js';

/** RCODE names (RFC 1035, 2136, 6895) for the errors a primary may answer a transfer with. */
const RCODES: Record<number, string> = { 1: 'FORMERR', 2: 'SERVFAIL', 3: 'NXDOMAIN', 4: 'NOTIMP', 5: 'REFUSED', 9: 'NOTAUTH', 10: 'NOTZONE' };
export const rcodeName = (rcode: number): string => (RCODES[rcode] ? `${RCODES[rcode]} (rcode ${rcode})` : `rcode ${rcode}`);

/**
 * A query to a primary, signed with `key` when there is one (a mirror's key for its masters, the key an
 * import by AXFR gives): the bytes to send and the check of each answer message (which throws when the
 * answer is not signed as it must be).
 */
export function toMaster(key: TsigKeyRef | null, query: Buffer, now: () => number): { request: Buffer; check: (msg: Buffer) => void; complete: () => boolean } {
  if (!key) return { request: query, check: () => undefined, complete: () => true };
  const exchange = new SignedExchange(query, tsigSecret(key), now);
  return { request: exchange.request, check: (msg) => exchange.check(msg), complete: () => exchange.complete };
}


/** A message received from a master: its header (dns-packet's reading) and its answers (the registry's). */
export interface Received {
  raw: Buffer;
  packet: dnsPacket.Packet;
  answers: ReceivedRecord[];
}

export const received = (buf: Buffer): Received => ({ raw: buf, packet: decodeStrict(buf), answers: receivedAnswers(buf) });

/** The bounds of one transfer. */
export interface PullLimits {
  /** Records at most (the SOA and, with dropDnssec, DNSSEC records not counted). */
  maxRecords: number;
  /** The whole transfer, from connecting to the closing SOA. */
  timeoutMs: number;
  /** Bytes received at most. */
  maxBytes: number;
  /** Cuts the transfer short. */
  signal?: AbortSignal;
  /**
   * Drop the DNSSEC records a signed primary sends (RRSIG, NSEC, NSEC3, NSEC3PARAM, DNSKEY, CDS, CDNSKEY...):
   * an import takes the zone's data and signs it itself. A mirror keeps them (it serves the zone as received).
   */
  dropDnssec?: boolean;
  /**
   * Records we do not take (a type we do not host, data our rules refuse) are listed in the result's
   * `refused` instead of failing the transfer: an import names every one of them to the customer. A mirror
   * serves nothing less than the whole zone, so for it they fail the transfer.
   */
  listRefused?: boolean;
  /** Over TLS (RFC 9103) instead of TCP. */
  tls?: boolean;
  /** Over TLS: how the master's certificate is verified (null: it is not). */
  tlsAuth?: MasterTlsAuth | null;
}

/**
 * Pulls the whole zone `zone` from `host` port `port` by AXFR over TCP or TLS (signed with `key` when given) and
 * validates it; throws on anything that is not a clean, complete zone (the primary's rcode named). Used by
 * zone mirrors and by imports by AXFR (services/zonefiles.ts's ZoneSource, implemented in ./index.ts).
 */
export async function pullZone(host: string, port: number, zone: string, key: TsigKeyRef | null, limits: PullLimits, now: () => number): Promise<ZoneContent & { refused: string[] }> {
  const { maxRecords } = limits;
  const id = randomInt(65536);
  const query = packet.encode({
    type: 'query',
    id,
    flags: queryFlags(OPCODE.QUERY),
    questions: [{ type: 'AXFR', class: 'IN', name: zone }],
  });
  let soa: ZoneRecord | null = null;
  const records: RecordData[] = [];
  const refused: string[] = [];
  let complete = false;
  const exchange = toMaster(key, query, now);
  await tcpExchange(
    host,
    port,
    exchange.request,
    (buf) => {
      const msg = received(buf);
      if (msg.packet.id !== id || msg.packet.type !== 'response') throw new Error('the master sent a message that does not answer our query');
      exchange.check(buf);
      const rcode = rcodeOf(msg.packet.flags);
      if (rcode !== 0) throw new Error(`the primary refused the transfer: ${rcodeName(rcode)}`);
      for (const a of msg.answers) {
        if (complete) throw new Error('records after the closing SOA');
        if (!soa) {
          soa = checkSoa(a, zone);
          continue;
        }
        if (a.type === SOA_TYPE.type) {
          if (soaData(checkSoa(a, zone)).serial !== soaData(soa).serial) {
            throw new Error('the closing SOA does not match the opening one');
          }
          complete = true;
          continue;
        }
        if (limits.dropDnssec && recordType(a.type)?.dnssec) continue;
        if (records.length + refused.length >= maxRecords) throw new Error(`the zone holds more than ${maxRecords} records`);
        try {
          records.push(checkAnswer(a, zone));
        } catch (e) {
          if (!limits.listRefused) throw e;
          refused.push((e as Error).message);
        }
      }
      // A signed transfer ends on a signed message (RFC 8945 5.3.1).
      if (complete && !exchange.complete()) throw new Error("the transfer's last message is not signed");
      return complete;
    },
    { timeoutMs: limits.timeoutMs, maxBytes: limits.maxBytes, tls: limits.tls ?? false, tlsAuth: limits.tlsAuth ?? null, ...(limits.signal ? { signal: limits.signal } : {}) },
  );
  if (!soa) throw new Error('the transfer holds no SOA');
  // The rules our own zones keep (model/zone-rules.ts): duplicates dropped, a CNAME alone at its name.
  const { kept, error } = checkZone(records, zone);
  if (error) throw new Error(error);
  const answers = kept.map((r) => ({ name: absoluteName(r.name, zone), type: r.type, ttl: r.ttl, data: r.data }));
  // Apex NS set first, as in the zones we build ourselves.
  const apexNs = (a: ZoneRecord) => recordType(a.type)?.nameServer === true && a.name === zone;
  return { soa, answers: [...answers.filter(apexNs), ...answers.filter((a) => !apexNs(a))], refused };
}

const isName = (s: unknown): s is string => typeof s === 'string' && s.length > 0 && s.length <= MAX_NAME_LENGTH;

export function checkSoa(a: ReceivedRecord, zone: string): ZoneRecord {
  if (a.type !== SOA_TYPE.type || !a.data) throw new Error('the transfer does not start with an SOA');
  if (a.name.toLowerCase() !== zone) throw new Error(`the transfer's SOA is for ${a.name}, not ${zone}`);
  if (a.klass !== CLASS_IN) throw new Error(`the SOA's class ${a.klass} is not IN`);
  const d = soaData(a);
  if (!isName(d.mname) || !isName(d.rname)) throw new Error('the SOA record is malformed');
  return { type: SOA_TYPE.type, name: zone, ttl: wireTtl(a.ttl), data: a.data };
}

/**
 * One received record, checked by its type module as an API write would be (less what only customers are
 * held to), and kept with the master's TTL (read as RFC 2181 8 says) and its data as the master sent it:
 * the type keeps what customers cannot set (the string boundaries of a TXT record, a CAA record's flags).
 */
function checkAnswer(a: ReceivedRecord, zone: string): RecordData {
  const label = `${a.name} ${a.type}`;
  if (a.klass !== CLASS_IN) throw new Error(`${label}: class ${a.klass} is not IN`);
  const name = relativeName(`${a.name}.`, zone);
  if (name === null) throw new Error(`${label}: the name is outside the zone`);
  const t = recordType(a.type);
  // DNSSEC's types (a signed master's RRSIG, NSEC/NSEC3, DNSKEY...) are carried as received; SOA only opens and closes.
  if (!t || (t.hosted === false && !t.dnssec) || !a.data) throw new Error(`${label}: record type ${a.type} is not supported`);
  // TTL 0 here only skips our own TTL rounding; the master's TTL is set below.
  const rec: RecordData = { type: t.type, name, ttl: 0, data: a.data };
  const problems = checkRecord(rec, { zone, transferred: true });
  if (!problems.empty) throw new Error(`${label}: ${problems.list.map((p) => p.message).join(' ')}`);
  return { ...rec, ttl: wireTtl(a.ttl) };
}
