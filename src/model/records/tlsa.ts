/**
 * TLSA (RFC 6698, RFC 7671): the certificate or public key a TLS server at `_port._protocol.host` presents.
 * Customers get the values RFC 6698's registries define (mnemonics of RFC 7218); zone mirrors serve any
 * octets their master has, as DNS does not check them.
 */
import { codeField, decodeHexRest, hexField, nameField, ttlField, validateCode, validateHex, type Codes } from './common.js';
import { parseHex, parseUint } from './presentation.js';
import type { RecordType } from './types.js';

const USAGES: Codes = { 0: 'PKIX-TA', 1: 'PKIX-EE', 2: 'DANE-TA', 3: 'DANE-EE' };
const SELECTORS: Codes = { 0: 'Cert', 1: 'SPKI' };
const MATCHING_TYPES: Codes = { 0: 'Full', 1: 'SHA2-256', 2: 'SHA2-512' };
/** Bytes of the digest each hashing matching type stands for; Full (0) takes the data whole, of any length. */
const DIGEST_BYTES: Readonly<Record<number, number>> = { 1: 32, 2: 64 };

export const TLSA: RecordType = {
  type: 'TLSA',
  code: 52,
  description: 'Certificate or public key of a TLS service (DANE): _port._protocol name, usage, selector, matching type and data',
  // The owner is _port._protocol.host (RFC 6698 3), which may be a zone's own name.
  apexAllowed: true,
  v1Fields: {
    name: nameField,
    certificate_usage: codeField('How the data constrains the server\'s certificate', USAGES),
    selector: codeField('What the data is matched against: the whole certificate or its public key', SELECTORS),
    matching_type: codeField('How the data is presented: whole, or its SHA-256 or SHA-512 digest', MATCHING_TYPES),
    certificate_association_data: hexField('The certificate, public key or digest in hexadecimal: 32 bytes for matching type 1, 64 for 2'),
    ttl: ttlField,
  },
  v1Required: ['certificate_usage', 'selector', 'matching_type', 'certificate_association_data'],
  validate(rec, ctx, p) {
    const { certificate_usage, selector, matching_type, certificate_association_data } = rec.data;
    rec.data = { certificate_usage, selector, matching_type, certificate_association_data };
    validateCode(rec.data, 'certificate_usage', 'certificate usage', USAGES, ctx, p);
    validateCode(rec.data, 'selector', 'selector', SELECTORS, ctx, p);
    validateCode(rec.data, 'matching_type', 'matching type', MATCHING_TYPES, ctx, p);
    // A customer's digest must have its hash's length; a master's data is served whatever its length (BIND and Knot load any).
    const hashed = !ctx.transferred && typeof matching_type === 'number' && Object.hasOwn(DIGEST_BYTES, matching_type) ? matching_type : undefined;
    if (hashed === undefined) validateHex(rec.data, 'certificate_association_data', 'certificate association data', p);
    else validateHex(rec.data, 'certificate_association_data', `${MATCHING_TYPES[hashed]} digest (matching type ${hashed})`, p, DIGEST_BYTES[hashed]);
  },
  encode(data, w) {
    w.u8(Number(data.certificate_usage));
    w.u8(Number(data.selector));
    w.u8(Number(data.matching_type));
    w.bytes(Buffer.from(String(data.certificate_association_data), 'hex'));
  },
  decode: (r) => ({ certificate_usage: r.u8(), selector: r.u8(), matching_type: r.u8(), certificate_association_data: decodeHexRest(r, 'the certificate association data') }),
  // The data in one piece, as kdig prints it (dig splits it every 56 digits).
  // PowerDNS shows the data in lower case.
  pdns: { present: (data) => TLSA.present(data).toLowerCase() },
  present: (data) => `${Number(data.certificate_usage)} ${Number(data.selector)} ${Number(data.matching_type)} ${String(data.certificate_association_data)}`,
  parse(tokens) {
    return {
      certificate_usage: parseUint(tokens[0], 255, 'the certificate usage'),
      selector: parseUint(tokens[1], 255, 'the selector'),
      matching_type: parseUint(tokens[2], 255, 'the matching type'),
      certificate_association_data: parseHex(tokens.slice(3), 'the certificate association data'),
    };
  },
};
