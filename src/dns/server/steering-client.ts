/**
 * The client a steered answer is chosen for (dns/zone/steer.ts): the network of the query's EDNS Client Subnet
 * option (RFC 7871) when it has one, else its source address; and the ECS option the answer carries back,
 * with the scope the choice held for (0 when nothing was steered: the answer is the same for everyone),
 * appended to the answer as cookies are, so answers to ECS queries are cached too (response-cache.ts).
 */
import * as ip from '@leichtgewicht/ip-codec';
import { clientSubnetOption } from '../wire/client-subnet.js';
import type { Query } from '../wire/query.js';
import type { SteeringClient } from '../zone/steer.js';
import type { AnswerExtras } from './answer-options.js';
import { senderAddress, type UdpSender } from './udp-socket.js';

/** The source address of a query (over UDP its sender's bytes, read only when asked), or null when unknown. */
export type ClientAddress = string | UdpSender | null;

export function steeringClient(q: Query, address: ClientAddress): SteeringClient | null {
  const ecs = q.edns?.ecs;
  if (ecs) return { bytes: ecs.bytes, prefix: ecs.sourcePrefix };
  if (address === null) return null;
  if (typeof address !== 'string') {
    // A view of the sender's bytes, read at once (the choice is made before the next datagram is read).
    const bytes = senderAddress(address);
    return { bytes, prefix: bytes.length * 8 };
  }
  const text = address;
  // An IPv4 client on a dual-stack socket is written ::ffff:a.b.c.d; a link-local address may carry its zone.
  const plain = text.startsWith('::ffff:') && text.includes('.') ? text.slice(7) : text.split('%')[0] as string;
  try {
    const bytes = ip.encode(plain);
    return { bytes, prefix: bytes.length * 8 };
  } catch {
    return null;
  }
}

/**
 * What the answer to `q` carries for its client alone, appended to its OPT record on the way out: the ECS
 * option with the scope of the answer's choices (when a zone answered and the query had one), then `extras`
 * (cookie, NSID). Null when nothing.
 */
export function ownOptions(q: Query, fromZone: boolean, scope: number, extras: AnswerExtras | null): Buffer | null {
  const ecs = fromZone ? q.edns?.ecs : undefined;
  if (!ecs) return extras ? extras.options : null;
  const option = clientSubnetOption(ecs, scope);
  return extras ? Buffer.concat([option, extras.options]) : option;
}
