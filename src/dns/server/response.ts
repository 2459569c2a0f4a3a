/**
 * A query's answer as one message within the size the transport allows: what is left out when it does not
 * fit, and when TC sends the client to TCP (RFC 1035 4.2.1, RFC 6891 7, RFC 9471 3.1).
 */
import { splitName } from '../../model/labels.js';
import { clientSubnetSize } from '../wire/client-subnet.js';
import { edeOption } from '../wire/edns-options.js';
import { EDNS_UDP_SIZE, TCP_MAX } from '../wire/message.js';
import type { Malformed, Query } from '../wire/query.js';
import type { Entry, Result } from '../zone/result.js';
import { ResponseWriter } from '../wire/writer.js';

const CLASSIC_UDP_SIZE = 512;

/** The largest response the client can take over UDP. */
export function udpLimit(q: Query): number {
  if (!q.edns) return CLASSIC_UDP_SIZE;
  return Math.max(CLASSIC_UDP_SIZE, Math.min(q.edns.udpSize, EDNS_UDP_SIZE));
}

/**
 * The room for the answer to `q` over `transport`, leaving free what is appended to it for its client alone on
 * the way out: `own` octets of cookie and NSID (answer-options.ts), and its EDNS Client Subnet option.
 */
export function answerLimit(q: Query, transport: 'udp' | 'tcp', own: number): number {
  const ecs = q.edns?.ecs;
  return (transport === 'udp' ? udpLimit(q) : TCP_MAX) - own - (ecs ? clientSubnetSize(ecs) : 0);
}

/** The option of the answer's OPT record made with it: its Extended DNS Error; null for none. */
const responseOptions = (r: Result): Buffer | null => (r.ede ? edeOption(r.ede) : null);

/** An answer that does not fit in the largest DNS message: no transport can carry it. */
export class AnswerTooLarge extends Error {}

/**
 * Encodes a response within `limit` bytes: additional records that do not fit are left out (TC set when
 * one is a referral's required glue, RFC 9471 3.1), and when answer and authority do not fit either, an
 * empty response with TC asks the client to retry over TCP.
 * Throws AnswerTooLarge when they do not fit TCP_MAX, where TC would have nothing to send the client to.
 */
export function encodeResponse(q: Query | Malformed, r: Result, limit: number): Buffer {
  const w = new ResponseWriter();
  if (!('malformed' in q)) w.question(q.labels, q.qtype, q.qclass, q.key);
  const edns = q.edns;
  const options = edns ? responseOptions(r) : null;
  const room = limit - (edns ? 11 + (options ? options.length : 0) : 0);
  const afterQuestion = w.mark();
  let tc = false;
  const write = (section: 1 | 2 | 3, e: Entry) => w.rrset(section, e.owner ?? splitName(e.set.owner), e.set.type, e.ttl ?? e.set.ttl, e.set.items);
  for (const e of r.answer) write(1, e);
  for (const e of r.authority) write(2, e);
  if (w.length > room) {
    if (limit >= TCP_MAX) throw new AnswerTooLarge('the answer does not fit in one DNS message');
    w.rollback(afterQuestion);
    tc = true;
  } else {
    for (const e of r.additional) {
      const before = w.mark();
      write(3, e);
      if (w.length > room) {
        w.rollback(before);
        // Required glue comes first: what did not fit leaves a name server unreachable, so the client retries over TCP.
        tc = e.required === true;
        break;
      }
    }
  }
  if (edns) w.opt(EDNS_UDP_SIZE, r.rcode, edns.dnssecOk, options);
  return w.finish(q.id, q.flags, r.rcode, r.aa, tc);
}
