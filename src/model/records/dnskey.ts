/**
 * DNSKEY (RFC 4034 2) and CDNSKEY (RFC 7344 3.2), one definition under two names and numbers: a zone's
 * public DNSSEC key, and the key the zone asks its parent to make a DS record of. Made by the signer, never
 * by customers (`hosted: false`). `public_key` is base64 (RFC 4034 2.2). CDNSKEY belongs at the apex and has
 * a delete form, `0 3 0 AA==` (RFC 8078 4): remove the DS records.
 */
import { base64Field, decodeBase64Rest, nameField, parseAlgorithm, parseBase64, ttlField, uint16Field, uint8Field, validateBase64, validateUint } from './common.js';
import { parseUint } from './presentation.js';
import type { RecordType } from './types.js';

/** DNSKEY's protocol field: always 3 (RFC 4034 2.1.2). */
const PROTOCOL = 3;
/** The fields of a DNSKEY or CDNSKEY record's data. */
export type DnskeyFields = { flags: number; protocol: number; algorithm: number; public_key: string };

/** The data of a DNSKEY (or CDNSKEY) record of a key: its flags, algorithm and public key (the protocol is always 3). */
export const dnskeyData = (flags: number, algorithm: number, publicKey: Buffer): DnskeyFields => ({ flags, protocol: PROTOCOL, algorithm, public_key: publicKey.toString('base64') });

/** RFC 8078 4: the CDNSKEY that asks for the delegation to become insecure. */
export const CDNSKEY_DELETE: Readonly<DnskeyFields> = Object.freeze({ flags: 0, protocol: PROTOCOL, algorithm: 0, public_key: 'AA==' });

/** The key type `type`: DNSKEY, or CDNSKEY (`child`: apex only, with the delete form). */
export function dnssecKey(type: string, code: number, description: string, child: boolean): RecordType {
  return {
    type,
    code,
    description,
    hosted: false,
    dnssec: true,
    apexAllowed: true,
    v1Fields: {
      name: nameField,
      flags: uint16Field('Flags: 256 for a zone key, 257 for a zone key that is also a secure entry point (KSK or CSK)'),
      protocol: uint8Field('Protocol: always 3'),
      algorithm: uint8Field(`DNSSEC algorithm number, such as 13 (ECDSA P-256 with SHA-256) or 15 (Ed25519)${child ? '; 0 only in the delete form 0 3 0 AA==' : ''}`),
      public_key: base64Field('The public key in base64, in the format of its algorithm'),
      ttl: ttlField,
    },
    v1Required: ['flags', 'protocol', 'algorithm', 'public_key'],
    validate(rec, _ctx, p) {
      const { flags, protocol, algorithm, public_key } = rec.data;
      rec.data = { flags, protocol, algorithm, public_key };
      if (child && rec.name !== '') p.add('name', `A ${type} record belongs at the domain itself (RFC 7344 4).`);
      validateUint(rec.data, 'flags', p);
      if (protocol !== PROTOCOL) p.add('protocol', `The protocol of a ${type} record must be 3 (RFC 4034 2.1.2).`);
      validateUint(rec.data, 'algorithm', p, 255);
      validateBase64(rec.data, 'public_key', 'public key', p);
      // Algorithm 0 is reserved; a CDNSKEY uses it only for RFC 8078's delete form.
      if (algorithm === 0 && !(child && flags === CDNSKEY_DELETE.flags && rec.data.public_key === CDNSKEY_DELETE.public_key)) {
        p.add('algorithm', child ? `The algorithm 0 is only for the delete form of a ${type} record: 0 3 0 AA== (RFC 8078 4).` : `The algorithm of a ${type} record cannot be 0 (reserved).`);
      }
    },
    encode(data, w) {
      w.u16(Number(data.flags));
      w.u8(Number(data.protocol));
      w.u8(Number(data.algorithm));
      w.bytes(Buffer.from(String(data.public_key), 'base64'));
    },
    decode: (r): DnskeyFields => ({ flags: r.u16(), protocol: r.u8(), algorithm: r.u8(), public_key: decodeBase64Rest(r, 'the public key') }),
    // The key in one piece, as kdig prints it (dig and named-compilezone split it every 56 characters).
    present: (data) => `${Number(data.flags)} ${Number(data.protocol)} ${Number(data.algorithm)} ${String(data.public_key)}`,
    parse: (tokens) => ({
      flags: parseUint(tokens[0], 65535, 'the flags'),
      protocol: parseUint(tokens[1], 255, 'the protocol'),
      algorithm: parseAlgorithm(tokens[2]),
      public_key: parseBase64(tokens.slice(3), 'the public key'),
    }),
  };
}

export const DNSKEY: RecordType = dnssecKey('DNSKEY', 48, "DNSSEC key: a public key the zone's signatures are made with (RFC 4034), published by the signer", false);
export const CDNSKEY: RecordType = dnssecKey('CDNSKEY', 60, 'Child DNSKEY: the key a signed zone asks its parent to make its DS record of (RFC 7344), published by the signer', true);
