/**
 * The numbers of a DNS message that the query parser, the response writer and the transfer code share:
 * header flags, meta-types, classes, opcodes, rcodes, EDNS(0) bits and message sizes. The numbers of data
 * types are the registry's (model/records: each type module's `code`).
 */

/** The types that carry no zone data (RFC 6895 3.1), which the registry hosts none of: the wire layer's own. */
export const META_TYPE = { OPT: 41, TSIG: 250, IXFR: 251, AXFR: 252, MAILB: 253, MAILA: 254, ANY: 255 } as const;
export const CLASS_IN = 1;
export const CLASS_ANY = 255;
export const OPCODE = { QUERY: 0, NOTIFY: 4, UPDATE: 5 } as const;
export const RCODE = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5, YXDOMAIN: 6, YXRRSET: 7, NXRRSET: 8, NOTAUTH: 9, NOTZONE: 10, BADVERS: 16 } as const;

/** Type numbers and mnemonics both ways: the registry's table (dig's names, `TYPE<n>` otherwise). */
export { typeCode, typeMnemonic as typeName } from '../../model/records/bitmap.js';

export const FLAG_QR = 0x8000;
export const FLAG_AA = 0x0400;
export const FLAG_TC = 0x0200;
export const FLAG_RD = 0x0100;
export const FLAG_CD = 0x0010;
/** The DO bit in the OPT record's TTL field (RFC 3225). */
export const EDNS_DO = 0x8000;

/** The IANA port of DNS over TLS (RFC 7858), where zone mirrors reach masters over TLS too (RFC 9103). */
export const DOT_PORT = 853;
/** The ALPN protocol of DNS over TLS (RFC 7858's registration), which XoT requires (RFC 9103 7.1). */
export const DOT_ALPN = 'dot';

/** The largest DNS message: what the 2-byte length of TCP framing can say. */
export const TCP_MAX = 65535;
/** UDP payload size we offer and accept at most (the DNS flag day 2020 value). */
export const EDNS_UDP_SIZE = 1232;

/*
 * 16-bit fields read and written on the path of every query: Buffer's readUInt16BE and writeUInt16BE check their
 * arguments first and are not inlined there (a profile of cached answers counted them apart).
 */
export const u16At = (b: Uint8Array, at: number): number => ((b[at] as number) << 8) | (b[at + 1] as number);

export function putU16(b: Uint8Array, value: number, at: number): void {
  b[at] = value >> 8;
  b[at + 1] = value & 0xff;
}
