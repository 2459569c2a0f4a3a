/**
 * DS (RFC 4034 5), and CDS built from the same code (`delegationSigner`, RFC 7344 3.1): the digest of a
 * DNSSEC key (DNSKEY). A DS record is the digest of a delegated child zone's key, which the parent holds at
 * the delegation: only where the name has NS records (the zone rules see to that), never at the apex (the
 * zone's own DS records live in its parent). The DNS server answers DS queries at a delegation itself.
 * A CDS record is the DS record a signed zone asks its parent for, at its apex; the signer makes it
 * (`hosted: false`), and it has a delete form, `0 0 0 00` (RFC 8078 4).
 */
import { decodeHexRest, hexField, nameField, parseAlgorithm, ttlField, uint16Field, uint8Field, validateHex, validateUint } from './common.js';
import { parseHex, parseUint } from './presentation.js';
import type { RecordFields, RecordType } from './types.js';

/** The digest types whose digest length is known: SHA-1 (RFC 4034), SHA-256 (RFC 4509) and SHA-384 (RFC 6605). */
const DIGESTS: Record<number, { name: string; bytes: number }> = { 1: { name: 'SHA-1', bytes: 20 }, 2: { name: 'SHA-256', bytes: 32 }, 4: { name: 'SHA-384', bytes: 48 } };

/** The fields of a DS or CDS record's data; `digest` upper-case hex. */
export type DsFields = { key_tag: number; algorithm: number; digest_type: number; digest: string };

/** The data of a DS (or CDS) record: the key's tag and algorithm, the digest's type and the digest itself. */
export const dsData = (keyTag: number, algorithm: number, digestType: number, digest: Buffer): DsFields => ({ key_tag: keyTag, algorithm, digest_type: digestType, digest: digest.toString('hex').toUpperCase() });

/** RFC 8078 4: the CDS that asks for the delegation to become insecure. */
export const CDS_DELETE: Readonly<DsFields> = Object.freeze({ key_tag: 0, algorithm: 0, digest_type: 0, digest: '00' });

/**
 * The digest type `type`: DS (customers create it at a delegation), or CDS (`child`: made by the signer, at
 * the apex, with the delete form).
 */
export function delegationSigner(type: string, code: number, description: string, child: boolean): RecordType {
  return {
    type,
    code,
    description,
    ...(child ? { hosted: false as const, dnssec: true as const, apexAllowed: true } : { apexAllowed: false, requires: 'NS' }),
    v1Fields: {
      name: nameField,
      key_tag: uint16Field(`Key tag of the ${child ? "zone's" : "child zone's"} DNSKEY record`),
      algorithm: uint8Field(`DNSSEC algorithm number of that key, such as 13 (ECDSA P-256 with SHA-256) or 8 (RSA/SHA-256)${child ? '; 0 only in the delete form 0 0 0 00' : ''}`),
      digest_type: uint8Field('Digest algorithm: 2 (SHA-256), 4 (SHA-384) or 1 (SHA-1)'),
      digest: hexField('Digest of the key in hexadecimal, stored upper-case: 32 bytes for digest type 2, 48 for 4, 20 for 1'),
      ttl: ttlField,
    },
    v1Required: ['key_tag', 'algorithm', 'digest_type', 'digest'],
    validate(rec, ctx, p) {
      const { key_tag, algorithm, digest_type, digest } = rec.data;
      rec.data = { key_tag, algorithm, digest_type, digest };
      if (child && rec.name !== '') p.add('name', `A ${type} record belongs at the domain itself (RFC 7344 4).`);
      validateUint(rec.data, 'key_tag', p);
      validateUint(rec.data, 'algorithm', p, 255);
      validateUint(rec.data, 'digest_type', p, 255);
      // A digest of another length can match no key, which makes the child zone bogus for validating resolvers.
      const known = ctx.transferred ? undefined : DIGESTS[Number(digest_type)];
      validateHex(rec.data, 'digest', known ? `${known.name} digest (digest type ${Number(digest_type)})` : 'digest', p, known?.bytes);
      // Algorithm and digest type 0 are reserved; a CDS uses them only for RFC 8078's delete form.
      if (child && (algorithm === 0 || digest_type === 0) && !(key_tag === 0 && algorithm === 0 && digest_type === 0 && rec.data.digest === CDS_DELETE.digest)) {
        p.add(algorithm === 0 ? 'algorithm' : 'digest_type', `Algorithm and digest type 0 are only for the delete form of a ${type} record: 0 0 0 00 (RFC 8078 4).`);
      }
    },
    encode(data, w) {
      w.u16(Number(data.key_tag));
      w.u8(Number(data.algorithm));
      w.u8(Number(data.digest_type));
      w.bytes(Buffer.from(String(data.digest), 'hex'));
    },
    decode: (r): DsFields => ({ key_tag: r.u16(), algorithm: r.u8(), digest_type: r.u8(), digest: decodeHexRest(r, 'the digest') }),
    // dig and named-compilezone split a long digest into groups of 56 digits; written whole, as kdig does.
    present: presentDs,
    // PowerDNS shows the digest in lower case.
    pdns: { present: (data) => presentDs(data).toLowerCase() },
    parse: (tokens) => ({
      key_tag: parseUint(tokens[0], 65535, 'the key tag'),
      algorithm: parseAlgorithm(tokens[1]),
      digest_type: parseUint(tokens[2], 255, 'the digest type'),
      digest: parseHex(tokens.slice(3), 'the digest'),
    }),
  };
}

/** DS data in master-file form. */
function presentDs(data: RecordFields): string {
  return `${Number(data.key_tag)} ${Number(data.algorithm)} ${Number(data.digest_type)} ${String(data.digest)}`;
}

export const DS: RecordType = delegationSigner('DS', 43, 'Delegation signer: the digest of a DNSSEC key of a delegated sub-domain, beside its NS records (RFC 4034)', false);
