/**
 * SSHFP (RFC 4255; algorithms of RFC 6594, RFC 7479 and RFC 8709): the fingerprint of a host's SSH key.
 * Customers get the assigned algorithms and fingerprint types; zone mirrors serve any their master has.
 */
import { codeField, decodeHexRest, hexField, nameField, ttlField, validateCode, validateHex, type Codes } from './common.js';
import { parseHex, parseUint } from './presentation.js';
import type { RecordType } from './types.js';

const ALGORITHMS: Codes = { 1: 'RSA', 2: 'DSA', 3: 'ECDSA', 4: 'Ed25519', 6: 'Ed448' };
const FINGERPRINT_TYPES: Codes = { 1: 'SHA-1', 2: 'SHA-256' };
/** Bytes of each fingerprint type's digest. */
const DIGEST_BYTES: Readonly<Record<number, number>> = { 1: 20, 2: 32 };

export const SSHFP: RecordType = {
  type: 'SSHFP',
  code: 44,
  description: "Fingerprint of the host's SSH key: algorithm, fingerprint type and fingerprint",
  apexAllowed: true,
  v1Fields: {
    name: nameField,
    algorithm: codeField("The SSH key's algorithm", ALGORITHMS),
    fingerprint_type: codeField('The hash the fingerprint was made with', FINGERPRINT_TYPES),
    fingerprint: hexField('The fingerprint in hexadecimal: 20 bytes for type 1, 32 for type 2'),
    ttl: ttlField,
  },
  v1Required: ['algorithm', 'fingerprint_type', 'fingerprint'],
  validate(rec, ctx, p) {
    const { algorithm, fingerprint_type, fingerprint } = rec.data;
    rec.data = { algorithm, fingerprint_type, fingerprint };
    validateCode(rec.data, 'algorithm', 'algorithm', ALGORITHMS, ctx, p);
    validateCode(rec.data, 'fingerprint_type', 'fingerprint type', FINGERPRINT_TYPES, ctx, p);
    // Held to its hash's length from masters too: BIND refuses other lengths (FORMERR), so no export would load.
    const hashed = typeof fingerprint_type === 'number' && Object.hasOwn(DIGEST_BYTES, fingerprint_type) ? fingerprint_type : undefined;
    if (hashed === undefined) validateHex(rec.data, 'fingerprint', 'fingerprint', p);
    else validateHex(rec.data, 'fingerprint', `${FINGERPRINT_TYPES[hashed]} fingerprint (type ${hashed})`, p, DIGEST_BYTES[hashed]);
  },
  encode(data, w) {
    w.u8(Number(data.algorithm));
    w.u8(Number(data.fingerprint_type));
    w.bytes(Buffer.from(String(data.fingerprint), 'hex'));
  },
  decode: (r) => ({ algorithm: r.u8(), fingerprint_type: r.u8(), fingerprint: decodeHexRest(r, 'the fingerprint') }),
  // The fingerprint in one piece, as kdig prints it (dig splits it every 56 digits).
  // PowerDNS shows the fingerprint in lower case.
  pdns: { present: (data) => SSHFP.present(data).toLowerCase() },
  present: (data) => `${Number(data.algorithm)} ${Number(data.fingerprint_type)} ${String(data.fingerprint)}`,
  parse(tokens) {
    return {
      algorithm: parseUint(tokens[0], 255, 'the algorithm'),
      fingerprint_type: parseUint(tokens[1], 255, 'the fingerprint type'),
      fingerprint: parseHex(tokens.slice(2), 'the fingerprint'),
    };
  },
};
