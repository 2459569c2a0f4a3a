/**
 * EDNS Client Subnet (RFC 7871): the network a resolver says its client is in, which steered answers
 * (dns/zone/steer.ts) choose by, and the option an answer carries back with the scope its choice held for.
 */
import { clearAfter } from '../../model/steering.js';
import { ednsOption, OPTION } from './edns-options.js';

/** A query's ECS option: the client's network, its address bytes (4 or 16, bits past the prefix cleared). */
export interface ClientSubnet {
  /** 1: IPv4, 2: IPv6 (IANA address family numbers). */
  family: number;
  sourcePrefix: number;
  bytes: Uint8Array;
}

const FAMILY_BYTES: Record<number, number> = { 1: 4, 2: 16 };

/**
 * The ECS option whose data is `length` octets at `at` in `msg`; null when it is malformed, which RFC 7871
 * 7.1 answers FORMERR: an unknown family, a source prefix longer than the family's addresses, a scope in a
 * query (it must be 0), or an address of another length than the prefix needs.
 */
export function readClientSubnet(msg: Buffer, at: number, length: number): ClientSubnet | null {
  if (length < 4) return null;
  const family = msg.readUInt16BE(at);
  const sourcePrefix = msg[at + 2] as number;
  const scope = msg[at + 3] as number;
  const size = FAMILY_BYTES[family];
  if (size === undefined || sourcePrefix > size * 8 || scope !== 0 || length - 4 !== Math.ceil(sourcePrefix / 8)) return null;
  const bytes = new Uint8Array(size);
  bytes.set(msg.subarray(at + 4, at + length));
  // Bits past the prefix must be 0 (RFC 7871 6); a resolver that sent others is not held to them.
  clearAfter(bytes, sourcePrefix);
  return { family, sourcePrefix, bytes };
}

/** The octets of the ECS option an answer carries back (option header included): its size whatever the scope. */
export const clientSubnetSize = (ecs: ClientSubnet): number => 8 + Math.ceil(ecs.sourcePrefix / 8);

/** The ECS option of an answer: the query's family, source prefix and address, with `scope` (RFC 7871 7.2.1). */
export function clientSubnetOption(ecs: ClientSubnet, scope: number): Buffer {
  const addressBytes = Math.ceil(ecs.sourcePrefix / 8);
  const data = Buffer.alloc(4 + addressBytes);
  data.writeUInt16BE(ecs.family, 0);
  data[2] = ecs.sourcePrefix;
  data[3] = scope;
  data.set(ecs.bytes.subarray(0, addressBytes), 4);
  return ednsOption(OPTION.ECS, data);
}
