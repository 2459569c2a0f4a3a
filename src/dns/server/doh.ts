/**
 * DNS over HTTPS (RFC 8484) as the DNS side answers it: one message in, one out (the HTTP door, src/http/
 * dns-query.ts, does the rest). Answered as over TCP: the whole answer, up to a DNS message's 65,535 octets, since
 * HTTP carries it whole (RFC 8484 6: the media type's limit), so the query's EDNS UDP size does not apply and
 * nothing is truncated; padded as over TLS. A zone transfer, which takes several messages, is not carried: NOTIMP.
 */
import { META_TYPE, OPCODE, RCODE, TCP_MAX } from '../wire/message.js';
import { padResponse } from '../wire/padding.js';
import { parseQuery } from '../wire/query.js';
import { readRecords } from '../wire/wire-record.js';
import { emptyResult } from '../zone/result.js';
import type { DnsHandler } from './handler.js';
import { encodeResponse } from './response.js';

export interface HttpAnswer {
  message: Buffer;
  /** How long the answer may be kept (RFC 8484 5.1): its records' smallest TTL, 0 without records. */
  maxAge: number;
}

/** Answers one message received over HTTP; null when it is not a query worth an answer (a response, a runt). */
export async function answerOverHttp(handler: DnsHandler, query: Buffer, remoteAddress: string): Promise<HttpAnswer | null> {
  const q = parseQuery(query);
  if (!q) return null;
  const transfer = !('malformed' in q) && q.opcode === OPCODE.QUERY && (q.qtype === META_TYPE.AXFR || q.qtype === META_TYPE.IXFR);
  const [message] = transfer ? [padResponse(encodeResponse(q, emptyResult(RCODE.NOTIMP), TCP_MAX))] : await handler.handle(query, remoteAddress, 'tcp', true);
  if (!message) return null;
  return { message, maxAge: smallestTtl(message) };
}

/** The smallest TTL of the answer and authority records (the OPT and TSIG records' are no TTLs). */
function smallestTtl(msg: Buffer): number {
  const records = readRecords(msg).slice(0, msg.readUInt16BE(6) + msg.readUInt16BE(8));
  return records.length === 0 ? 0 : Math.min(...records.map((r) => r.ttl));
}
