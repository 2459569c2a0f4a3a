/**
 * The stub resolver ALIAS targets are resolved through (`--resolver HOST:PORT`): one question over UDP with
 * recursion desired, asked twice at most; an answer truncated (TC: more addresses than 1232 octets hold) is
 * asked again over TCP (RFC 7766 5), with the transfers' TCP exchange (transfer/wire.ts). The answer's records
 * of the type asked for are the addresses (a CNAME chain the resolver followed comes along); the smallest TTL
 * of the answer section is how long they hold.
 */
import { randomInt } from 'node:crypto';
import * as packet from 'dns-packet';
import type { RecordFields, RecordType } from '../../model/records/index.js';
import { EDNS_UDP_SIZE, FLAG_QR, FLAG_TC, RCODE, TCP_MAX } from '../wire/message.js';
import { receivedAnswers, tcpExchange, udpExchange } from '../transfer/wire.js';

export interface ResolverAddress {
  host: string;
  port: number;
}

/** What a resolution found: the records (none: the name has no such data), that the name does not exist, or why there is no answer. */
export type Resolution =
  | { kind: 'records'; records: RecordFields[]; ttl: number }
  | { kind: 'nxdomain' }
  | { kind: 'unreachable'; why: string };

/** How long an answer without records (NODATA) is believed: the answer section has no TTL to go by. */
export const NODATA_TTL = 60;
const ATTEMPTS = 2;
const WAIT_MS = 1500;

/** Asks `server` for the `t` records (A, AAAA) of `name`. */
export async function resolveAt(server: ResolverAddress, name: string, t: RecordType, waitMs = WAIT_MS): Promise<Resolution> {
  let why = '';
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const id = randomInt(65536);
    const query = packet.encode({
      type: 'query',
      id,
      flags: packet.RECURSION_DESIRED,
      questions: [{ type: t.type as packet.RecordType, class: 'IN', name }],
      additionals: [{ type: 'OPT', name: '.', udpPayloadSize: EDNS_UDP_SIZE } as packet.Answer],
    });
    const answer = (m: Buffer) => (m.length >= 12 && m.readUInt16BE(0) === id && (m.readUInt16BE(2) & FLAG_QR) !== 0 ? m : null);
    let msg: Buffer;
    try {
      msg = await udpExchange(server.host, server.port, query, answer, waitMs);
    } catch (e) {
      why = `the resolver ${server.host}:${server.port} did not answer (${(e as Error).message})`;
      continue;
    }
    if ((msg.readUInt16BE(2) & FLAG_TC) !== 0) {
      try {
        msg = await overTcp(server, query, answer, waitMs);
      } catch (e) {
        why = `the resolver's answer for ${name} ${t.type} was truncated over UDP, and over TCP it did not answer (${(e as Error).message})`;
        continue;
      }
    }
    return resolution(msg, name, t, server);
  }
  return { kind: 'unreachable', why };
}

/** The answer `accept` takes of those the resolver sends over TCP to `query`. */
async function overTcp(server: ResolverAddress, query: Buffer, accept: (m: Buffer) => Buffer | null, waitMs: number): Promise<Buffer> {
  const got: { msg: Buffer | null } = { msg: null };
  await tcpExchange(server.host, server.port, query, (m) => (got.msg = accept(m)) !== null, { timeoutMs: waitMs, maxBytes: 2 + TCP_MAX });
  return got.msg as Buffer;
}

/** The resolver's answer read. */
function resolution(msg: Buffer, name: string, t: RecordType, server: ResolverAddress): Resolution {
  const flags = msg.readUInt16BE(2);
  const rcode = flags & 0xf;
  if (rcode === RCODE.NXDOMAIN) return { kind: 'nxdomain' };
  if (rcode !== RCODE.NOERROR) return { kind: 'unreachable', why: `the resolver ${server.host}:${server.port} answered ${name} ${t.type} with rcode ${rcode}` };
  if ((flags & FLAG_TC) !== 0) return { kind: 'unreachable', why: `the resolver's answer for ${name} ${t.type} was truncated` };
  let answers;
  try {
    answers = receivedAnswers(msg);
  } catch (e) {
    return { kind: 'unreachable', why: `the resolver's answer for ${name} ${t.type} is malformed (${(e as Error).message})` };
  }
  const records = answers.filter((a) => a.type === t.type && a.data).map((a) => a.data as RecordFields);
  const ttl = records.length > 0 ? Math.min(...answers.map((a) => a.ttl)) : NODATA_TTL;
  return { kind: 'records', records, ttl };
}
