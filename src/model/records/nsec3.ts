/**
 * NSEC3 (RFC 5155 3): in a zone signed with hashed denial of existence, the next hashed owner name in hash
 * order and the types at this one. Made by the signer (`hosted: false`). `next_hashed_owner` is base32hex
 * (RFC 4648 7) without padding, upper-case as dig and BIND print it; the record holds no domain name.
 */
import { Type } from '@sinclair/typebox';
import { WireError } from '../labels.js';
import { decodeTypeBitmap, encodeTypeBitmap, parseTypeList, validateTypeList } from './bitmap.js';
import { base32hex, base32hexOctets, nameField, ttlField } from './common.js';
import { typeListField } from './nsec.js';
import { decodeParams, encodeParams, PARAM_FIELDS, paramV1Fields, parseParams, presentParams, validateParams, type Nsec3Params } from './nsec3param.js';
import { PresentationError } from './presentation.js';
import type { RecordType } from './types.js';

/** The octets of a stored next hashed owner name (1 to 255), or null. */
function hashOctets(v: unknown): Buffer | null {
  const octets = typeof v === 'string' ? base32hexOctets(v) : null;
  return octets && octets.length >= 1 && octets.length <= 255 ? octets : null;
}

/** The fields of an NSEC3 record's data: the parameters, then the next hashed owner name (base32hex) and the types at this one. */
export type Nsec3Fields = Nsec3Params & { next_hashed_owner: string; types: string[] };

/** The data of an NSEC3 record: made with `params`, the next owner's hash in the chain, the types (mnemonics) at this owner. */
export const nsec3Data = (params: Nsec3Params, nextHash: Buffer, types: string[]): Nsec3Fields => ({ ...params, next_hashed_owner: base32hex(nextHash), types });

export const NSEC3: RecordType = {
  type: 'NSEC3',
  code: 50,
  description: 'Hashed next secure: the next hashed owner name of a signed zone and the types at this one (RFC 5155), made by the signer',
  hosted: false,
  dnssec: true,
  apexAllowed: false,
  v1Fields: {
    name: nameField,
    ...paramV1Fields('Flags: 1 is Opt-Out (the span may hold unsigned delegations)'),
    next_hashed_owner: Type.String({ pattern: '^[0-9A-Va-v]+$', maxLength: 408, description: 'The next hashed owner name in base32hex (RFC 4648 "Extended Hex"), unpadded, stored upper-case' }),
    types: typeListField('The types at the original owner name, by mnemonic, in type-number order; none at an empty non-terminal'),
    ttl: ttlField,
  },
  v1Required: [...PARAM_FIELDS, 'next_hashed_owner', 'types'],
  validate(rec, _ctx, p) {
    const { next_hashed_owner, types } = rec.data;
    rec.data = { ...Object.fromEntries(PARAM_FIELDS.map((f) => [f, rec.data[f]])), next_hashed_owner, types };
    validateParams(rec.data, p);
    const octets = hashOctets(next_hashed_owner);
    if (!octets) p.add('next_hashed_owner', 'The next hashed owner name must be base32hex (the digits and A-V), unpadded, of 1 to 255 octets.');
    else rec.data.next_hashed_owner = base32hex(octets);
    validateTypeList(rec.data, 'types', p, true);
  },
  encode(data, w) {
    encodeParams(data, w);
    const hash = hashOctets(data.next_hashed_owner);
    if (!hash) throw new WireError('the next hashed owner name is not base32hex of 1 to 255 octets');
    w.u8(hash.length);
    w.bytes(hash);
    encodeTypeBitmap(data.types, w);
  },
  decode(r): Nsec3Fields {
    const params = decodeParams(r);
    const length = r.u8();
    if (length === 0) throw new WireError('the next hashed owner name is empty');
    return { ...params, next_hashed_owner: base32hex(r.bytes(length)), types: decodeTypeBitmap(r, true) };
  },
  present: (data) => [presentParams(data), String(data.next_hashed_owner), ...(data.types as string[])].join(' '),
  parse(tokens) {
    const params = parseParams(tokens);
    const hash = tokens[4] ? hashOctets(tokens[4].text) : null;
    if (!hash) throw new PresentationError('the next hashed owner name must be base32hex of 1 to 255 octets');
    return { ...params, next_hashed_owner: base32hex(hash), types: parseTypeList(tokens.slice(5), true) };
  },
};
