/**
 * NSEC (RFC 4034 4): the next owner name of a signed zone in canonical order and the types at this one,
 * which prove that a name or type does not exist. Made by the signer, never by customers (`hosted: false`).
 * The next name is written in full (not one of RFC 1035's types) and keeps its case in canonical form
 * (RFC 6840 5.1, which takes NSEC out of RFC 4034 6.2's list).
 */
import { Type } from '@sinclair/typebox';
import { decodeTypeBitmap, encodeTypeBitmap, parseTypeList, validateTypeList } from './bitmap.js';
import { hostField, nameField, presentHost, ttlField, validateHost } from './common.js';
import { parseName } from './presentation.js';
import type { RecordType } from './types.js';

/** A type list's schema (NSEC, NSEC3). */
export const typeListField = (description: string) => Type.Array(Type.String({ pattern: '^[A-Za-z0-9-]+$', maxLength: 10 }), { maxItems: 65536, description });

export const NSEC: RecordType = {
  type: 'NSEC',
  code: 47,
  description: 'Next secure: the next name of a signed zone and the types at this one (RFC 4034), made by the signer',
  hosted: false,
  dnssec: true,
  apexAllowed: true,
  caseSensitiveNames: true,
  v1Fields: {
    name: nameField,
    next_domain: hostField('The next owner name in the zone in canonical order (the apex after the last), absolute'),
    types: typeListField('The types at the owner name, by mnemonic (TYPE and a number for one without), in type-number order'),
    ttl: ttlField,
  },
  v1Required: ['next_domain', 'types'],
  validate(rec, _ctx, p) {
    const { next_domain, types } = rec.data;
    rec.data = { next_domain, types };
    validateHost(rec.data, 'next_domain', 'NSEC', 'next domain name', p, { wildcard: true });
    validateTypeList(rec.data, 'types', p, false);
  },
  encode(data, w) {
    w.name(String(data.next_domain));
    encodeTypeBitmap(data.types, w);
  },
  decode: (r) => ({ next_domain: r.name(), types: decodeTypeBitmap(r, false) }),
  present: (data) => [presentHost(data.next_domain), ...(data.types as string[])].join(' '),
  parse: (tokens, origin) => ({ next_domain: parseName(tokens[0], origin, 'the next domain name'), types: parseTypeList(tokens.slice(1), false) }),
};
