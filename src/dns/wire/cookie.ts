/**
 * DNS cookies (RFC 7873) with server cookies as RFC 9018 makes them, so that every server sharing a secret
 * makes and accepts the same ones: version 1, three reserved octets, a 32-bit timestamp, and SipHash-2-4
 * (the siphash package) over client cookie | version | reserved | timestamp | client address, keyed with a
 * 16-byte secret, of which the first 8 octets of output are kept.
 */
import * as ip from '@leichtgewicht/ip-codec';
import { timingSafeEqual } from 'node:crypto';
import siphash from 'siphash';

export const CLIENT_COOKIE_BYTES = 8;
/** Our server cookies: version, reserved, timestamp, hash. */
export const SERVER_COOKIE_BYTES = 16;
/** The COOKIE option's data in our answers: the client cookie and our server cookie. */
export const ANSWER_COOKIE_BYTES = CLIENT_COOKIE_BYTES + SERVER_COOKIE_BYTES;

/** RFC 7873 5.2.2: a client cookie alone, or with a server cookie of 8 to 32 octets; any other length is FORMERR. */
export const cookieLengthValid = (n: number): boolean => n === CLIENT_COOKIE_BYTES || (n >= 16 && n <= 40);

/** RFC 9018 4.3: a cookie is valid an hour from its timestamp, and five minutes before it (clocks differ). */
const LIFETIME_S = 3600;
const SKEW_S = 300;
/** A valid cookie older than this is answered with a new one (RFC 9018 4.3: "half an hour"). */
const RENEW_S = 1800;

/** A secret as SipHash takes it: four little-endian 32-bit words. */
export type CookieKey = Uint32Array;

export function cookieKey(secret: Uint8Array): CookieKey {
  const b = Buffer.from(secret.buffer, secret.byteOffset, secret.byteLength);
  return Uint32Array.of(b.readUInt32LE(0), b.readUInt32LE(4), b.readUInt32LE(8), b.readUInt32LE(12));
}

/**
 * The client's address as it is hashed: 4 octets for IPv4 (an IPv4-mapped IPv6 address too), else 16 (a
 * link-local address's zone, `%eth0`, left out).
 */
export function addressBytes(address: string): Uint8Array {
  const plain = address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
  const zone = plain.indexOf('%');
  return ip.encode(zone < 0 ? plain : plain.slice(0, zone));
}

/** The hash's input: client cookie (8), version, reserved (3), timestamp (4), address (4 or 16). */
const input = new Uint8Array(16 + 16);

/** Writes SipHash-2-4 of `input`'s first `length` octets, little-endian as the reference code gives it. */
function writeHash(key: CookieKey, length: number, out: Buffer, at: number): void {
  const { h, l } = siphash.hash(key, input.subarray(0, length));
  out.writeUInt32LE(l >>> 0, at);
  out.writeUInt32LE(h >>> 0, at + 4);
}

/** Puts the client cookie, the server cookie's first 8 octets and the address in `input`; returns its length. */
function fill(msg: Buffer, clientAt: number, head: Uint8Array, address: Uint8Array): number {
  input.set(msg.subarray(clientAt, clientAt + CLIENT_COOKIE_BYTES), 0);
  input.set(head, 8);
  input.set(address, 16);
  return 16 + address.length;
}

/** Writes the COOKIE option's data for an answer at `out[at]`: the client's cookie and a new server cookie. */
export function writeAnswerCookie(msg: Buffer, clientAt: number, address: Uint8Array, nowS: number, key: CookieKey, out: Buffer, at: number): void {
  msg.copy(out, at, clientAt, clientAt + CLIENT_COOKIE_BYTES);
  out.writeUInt32BE(0x01000000, at + 8);
  out.writeUInt32BE(nowS >>> 0, at + 12);
  const length = fill(out, at, out.subarray(at + 8, at + 16), address);
  writeHash(key, length, out, at + 16);
}

/** What a query's cookie option says of its server cookie. */
export type CookieVerdict = 'valid' | 'renew' | 'invalid';

/**
 * Whether the cookie option data `msg[at, at + length)` carries a server cookie of ours for `address`, made with
 * one of `keys` less than an hour ago: 'renew' when it is valid but older than half an hour.
 */
export function checkServerCookie(msg: Buffer, at: number, length: number, address: Uint8Array, nowS: number, keys: readonly CookieKey[]): CookieVerdict {
  if (length !== ANSWER_COOKIE_BYTES || msg[at + 8] !== 1) return 'invalid';
  // Serial-number arithmetic (RFC 1982): the timestamp wraps in 2106.
  const age = ((nowS - msg.readUInt32BE(at + 12)) | 0);
  if (age > LIFETIME_S || age < -SKEW_S) return 'invalid';
  const length16 = fill(msg, at, msg.subarray(at + 8, at + 16), address);
  const mac = scratch;
  for (const key of keys) {
    writeHash(key, length16, mac, 0);
    if (timingSafeEqual(mac, msg.subarray(at + 16, at + 24))) return age > RENEW_S ? 'renew' : 'valid';
  }
  return 'invalid';
}
const scratch = Buffer.alloc(8);
