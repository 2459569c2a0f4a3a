/**
 * What a UDP socket of the DNS server is, whichever path reads it (udp.ts: the batched path of udp-batch.ts, or
 * dgram), and what its owner does with what arrives.
 */

export type UdpPath = 'batched' | 'dgram';

export interface UdpPeer {
  address: string;
  port: number;
}

/**
 * Where and when a datagram came from, with no string made per datagram (the batched path has the bytes
 * already): the 16 bytes at `bytes[at]` are the sender's IPv6 address, an IPv4 one written IPv4-mapped
 * (::ffff:a.b.c.d). Valid only during `now`.
 */
export interface UdpSender {
  bytes: Uint8Array;
  at: number;
  /** Epoch ms it was read (the batched path reads the clock once a batch: a clock reading costs as much as a lookup). */
  receivedAt: number;
  /** The sender's address as text, for what needs it (a cookie): made only when asked for. */
  address: () => string;
}

/** When the query from `address` arrived: a UdpSender's batch time, else the clock read now (TCP, a worker's hand-over). */
export const arrivedAt = (address: string | UdpSender, clock: () => number): number => (typeof address === 'string' ? clock() : address.receivedAt);

/**
 * Where the sender's address starts in `bytes` as its 4 (IPv4, written IPv4-mapped in the 16) or 16 octets: it
 * runs to `at + 16`. An offset, not a view, so the hot path (a cookie per query) makes no object.
 */
export function senderAddressStart(sender: UdpSender): number {
  const { bytes, at } = sender;
  let mapped = bytes[at + 10] === 0xff && bytes[at + 11] === 0xff;
  for (let i = 0; mapped && i < 10; i++) mapped = bytes[at + i] === 0;
  return mapped ? at + 12 : at;
}

/** The sender's address as its 4 or 16 octets (a view of `bytes`: senderAddressStart). */
export const senderAddress = (sender: UdpSender): Uint8Array => sender.bytes.subarray(senderAddressStart(sender), sender.at + 16);

/** A bound UDP socket. */
export interface UdpEndpoint {
  path: UdpPath;
  port: number;
  /** Sends one datagram (an answer that was not ready when its query arrived); failures are dropped, as UDP's are. */
  send(msg: Buffer, to: UdpPeer): void;
  close(): Promise<void>;
}

/** What the socket's owner does with what arrives. */
export interface UdpServe {
  /**
   * The answer to send at once, or null: then `later` gets the message; or 'drop': nothing is sent (an answer
   * over the rate limit). Never throws.
   */
  now(msg: Buffer, from: UdpSender): Buffer | null | 'drop';
  /** A message `now` did not answer, in a buffer of its own: its answers go out through `endpoint.send`. */
  later(msg: Buffer, from: UdpPeer, endpoint: UdpEndpoint): void;
}

export interface UdpOptions {
  host: string;
  port: number;
  /** SO_REUSEPORT: several threads bind the same port and the kernel spreads the clients over them. */
  reusePort: boolean;
  /** Datagrams per system call on the batched path; 0 takes the dgram path. */
  batch: number;
}
