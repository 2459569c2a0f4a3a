/**
 * DNS cookies (RFC 7873) with server cookies as RFC 9018 makes them, so that every server sharing a secret
 * makes and accepts the same ones: version 1, three reserved octets, a 32-bit timestamp, and SipHash-2-4
 * (the siphash24 package: WebAssembly, 9 times the speed of the pure-JavaScript siphash package this used first,
 * about 0.2 µs a hash) over client cookie | version | reserved | timestamp | client address, keyed with a
 * 16-byte secret, of which the first 8 octets of output are kept.
 */
import * as ip from '@leichtgewicht/ip-codec';
import siphash24 from 'siphash24';

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

/** A secret as SipHash takes it: its 16 octets. */
export type CookieKey = Uint8Array;

export const cookieKey = (secret: Uint8Array): CookieKey => Uint8Array.from(secret.subarray(0, 16));

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

/**
 * The last hash made in each of MEMO_SLOTS slots, with its key and input: a client asks many times a second with
 * the same client cookie from the same address, and within a second (the timestamp's unit) its input, so its
 * hash, is the same; a lookup costs a tenth of a hash. Slotted by octets of the client cookie and the address.
 */
const MEMO_SLOTS = 1024;
const memoKey: (CookieKey | null)[] = new Array<CookieKey | null>(MEMO_SLOTS).fill(null);
const memoLength = new Uint8Array(MEMO_SLOTS);
const memoInput = new Uint8Array(MEMO_SLOTS * input.length);
const memoHash = new Uint8Array(MEMO_SLOTS * 8);

/** Writes SipHash-2-4 of `input`'s first `length` octets at `out[at]`, in the reference code's byte order. */
function writeHash(key: CookieKey, length: number, out: Buffer, at: number): void {
  const slot = ((input[0] as number) ^ ((input[3] as number) << 2) ^ ((input[length - 1] as number) << 1)) & (MEMO_SLOTS - 1);
  const from = slot * input.length;
  let same = memoKey[slot] === key && memoLength[slot] === length;
  for (let i = 0; same && i < length; i++) same = memoInput[from + i] === input[i];
  if (!same) {
    siphash24(input.subarray(0, length), key, memoHash.subarray(slot * 8, slot * 8 + 8), true);
    memoKey[slot] = key;
    memoLength[slot] = length;
    memoInput.set(input.subarray(0, length), from);
  }
  for (let i = 0; i < 8; i++) out[at + i] = memoHash[slot * 8 + i] as number;
}

/**
 * The client's address as hashed: its octets `bytes[start, end)`, 4 or 16 of them (addressBytes makes them from
 * text; a UDP sender's are in place, so none are copied per query).
 */
export interface HashedAddress {
  bytes: Uint8Array;
  start: number;
  end: number;
}

/** An address's HashedAddress from its text. */
export function hashedAddressOf(address: string): HashedAddress {
  const bytes = addressBytes(address);
  return { bytes, start: 0, end: bytes.length };
}

/**
 * Puts the client cookie and the server cookie's first 8 octets (the 16 octets at `msg[at]`) and the address in
 * `input`; returns its length. Octet by octet: a few dozen, where a view per copy would cost more than the copy.
 */
function fill(msg: Uint8Array, at: number, address: HashedAddress): number {
  for (let i = 0; i < 16; i++) input[i] = msg[at + i] as number;
  const { bytes, start, end } = address;
  for (let i = start; i < end; i++) input[16 + i - start] = bytes[i] as number;
  return 16 + end - start;
}

/** Writes the COOKIE option's data for an answer at `out[at]`: the client's cookie and a new server cookie. */
export function writeAnswerCookie(msg: Buffer, clientAt: number, address: HashedAddress, nowS: number, key: CookieKey, out: Buffer, at: number): void {
  for (let i = 0; i < CLIENT_COOKIE_BYTES; i++) out[at + i] = msg[clientAt + i] as number;
  out.writeUInt32BE(0x01000000, at + 8);
  out.writeUInt32BE(nowS >>> 0, at + 12);
  const length = fill(out, at, address);
  writeHash(key, length, out, at + 16);
}

/** What a query's cookie option says of its server cookie. */
export type CookieVerdict = 'valid' | 'renew' | 'invalid';

/**
 * Whether the cookie option data `msg[at, at + length)` carries a server cookie of ours for `address`, made with
 * one of `keys` less than an hour ago: 'renew' when it is valid but older than half an hour.
 */
export function checkServerCookie(msg: Buffer, at: number, length: number, address: HashedAddress, nowS: number, keys: readonly CookieKey[]): CookieVerdict {
  if (length !== ANSWER_COOKIE_BYTES || msg[at + 8] !== 1) return 'invalid';
  // Serial-number arithmetic (RFC 1982): the timestamp wraps in 2106.
  const age = ((nowS - msg.readUInt32BE(at + 12)) | 0);
  if (age > LIFETIME_S || age < -SKEW_S) return 'invalid';
  const length16 = fill(msg, at, address);
  const mac = scratch;
  for (const key of keys) {
    writeHash(key, length16, mac, 0);
    // Compared in constant time, every octet whatever the first difference (as crypto.timingSafeEqual, without a view per query).
    let differ = 0;
    for (let i = 0; i < 8; i++) differ |= (mac[i] as number) ^ (msg[at + 16 + i] as number);
    if (differ === 0) return age > RENEW_S ? 'renew' : 'valid';
  }
  return 'invalid';
}
const scratch = Buffer.alloc(8);
