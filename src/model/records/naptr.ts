/**
 * NAPTR (RFC 3403 4.1): a rewrite rule of the Dynamic Delegation Discovery System (ENUM, SIP server
 * discovery): `order`, `preference`, `flags`, `services`, `regexp` (three character-strings) and
 * `replacement` (a domain name, "." for none). Not an RFC 1035 type: its name is never compressed.
 *
 * The strings are kept as octets (latin1). Customers' are printable ASCII, which is what ENUM and SIP use,
 * and their flags are stored upper-case (see validate); a zone mirror keeps a master's octets as sent.
 */
import { Type } from '@sinclair/typebox';
import { WireError } from '../labels.js';
import { hostField, nameField, presentHost, rootAsDot, ttlField, uint16Field, validateHost, validateUint } from './common.js';
import { noMore, parseName, parseUint, PresentationError, quoteString, unescape, type Token } from './presentation.js';
import type { RdataReader, RdataWriter, RecordType } from './types.js';

/** A character-string's longest content (RFC 1035 3.3: one length octet). */
const MAX_STRING = 255;
const STRINGS = ['flags', 'services', 'regexp'] as const;
// RFC 3403 4.1: each flag is one character from A-Z and 0-9, without regard to case.
const FLAGS = /^[A-Za-z0-9]*$/;
const PRINTABLE = /^[\x20-\x7e]*$/;

const writeString = (w: RdataWriter, s: string): void => {
  const bytes = Buffer.from(s, 'latin1');
  if (bytes.length > MAX_STRING) throw new WireError(`a NAPTR string is longer than ${MAX_STRING} octets`);
  w.u8(bytes.length);
  w.bytes(bytes);
};
const readString = (r: RdataReader): string => r.bytes(r.u8()).toString('latin1');

function parseString(token: Token | undefined, what: string): string {
  if (!token) throw new PresentationError(`${what} is missing`);
  const bytes = unescape(token.text);
  if (bytes.length > MAX_STRING) throw new PresentationError(`${what} may hold at most ${MAX_STRING} octets`);
  return bytes.toString('latin1');
}

/**
 * RFC 3403 3.2: a delimiter, the regular expression, the delimiter, the replacement text, the delimiter,
 * then the flag "i" or nothing. Escaped delimiters do not count; a digit (it would read as a back-reference),
 * "i" (a flag) or "\" cannot be the delimiter.
 */
function regexpProblem(regexp: string): string | null {
  const delimiter = regexp[0] ?? '';
  let found = 0;
  let rest = '';
  for (let i = 0; i < regexp.length && found < 3; i++) {
    if (regexp[i] === '\\') i++;
    else if (regexp[i] === delimiter && ++found === 3) rest = regexp.slice(i + 1);
  }
  if (/[0-9i\\]/.test(delimiter) || found < 3 || !/^i?$/.test(rest)) {
    return 'The NAPTR regexp must be a delimiter, a regular expression, the delimiter, the replacement text, the delimiter, then "i" or nothing (RFC 3403 3.2), such as "!^.*$!sip:info@example.com!"; the delimiter cannot be a digit, "i" or "\\".';
  }
  return null;
}

/** Customers' rule for each string, giving the problem or null. */
const CUSTOMER_RULES: Record<(typeof STRINGS)[number], (v: string) => string | null> = {
  flags: (v) => (FLAGS.test(v) ? null : 'The NAPTR flags may only hold the letters A-Z and the digits 0-9, one character each (such as "U", "S" or "A"); "" for none.'),
  services: (v) => (PRINTABLE.test(v) ? null : 'The NAPTR services must be printable ASCII characters (no control characters), "" for none.'),
  regexp: (v) => (!PRINTABLE.test(v) ? 'The NAPTR regexp must be printable ASCII characters (no control characters), "" for none.' : v === '' ? null : regexpProblem(v)),
};

/** What is wrong with one of the strings, or null; a master's strings are only checked to fit. */
function stringProblem(f: (typeof STRINGS)[number], v: unknown, transferred: boolean): string | null {
  if (typeof v !== 'string') return `The NAPTR ${f} must be text ("" for none).`;
  if (Buffer.byteLength(v, 'latin1') > MAX_STRING) return `The NAPTR ${f} must be at most ${MAX_STRING} characters long.`;
  return transferred ? null : CUSTOMER_RULES[f](v);
}

export const NAPTR: RecordType = {
  type: 'NAPTR',
  code: 35,
  description: 'Rewrite rule of the Dynamic Delegation Discovery System, such as ENUM or SIP server discovery (RFC 3403)',
  apexAllowed: true,
  v1Fields: {
    name: nameField,
    order: uint16Field('Order in which the records must be processed; lower first, and a client stops at the first order that gives a result'),
    preference: uint16Field('Preference among records of the same order; lower is tried first'),
    flags: Type.String({
      pattern: '^[A-Za-z0-9]*$',
      maxLength: MAX_STRING,
      default: '',
      description: 'Flags, one letter or digit each, stored upper-case: "U" (the regexp gives a URI: done), "S" (look up SRV records of the replacement), "A" (its addresses), "P" (protocol-specific); "" (look up NAPTR records of the replacement)',
    }),
    services: Type.String({ maxLength: MAX_STRING, default: '', description: 'Service parameters, such as "E2U+sip" (ENUM) or "SIP+D2U"; printable ASCII' }),
    regexp: Type.String({
      maxLength: MAX_STRING,
      default: '',
      description: 'Substitution expression: delimiter, regular expression, delimiter, replacement text, delimiter (such as "!^.*$!sip:info@example.com!"); "" when the replacement is used',
    }),
    replacement: Type.String({ ...hostField('Next domain name to look up; "." when the regexp is used'), default: '.' }),
    ttl: ttlField,
  },
  v1Required: ['order', 'preference'],
  validate(rec, ctx, p) {
    const { order, preference, flags = '', services = '', regexp = '', replacement = '.' } = rec.data;
    rec.data = { order, preference, flags, services, regexp, replacement };
    validateUint(rec.data, 'order', p);
    validateUint(rec.data, 'preference', p);
    validateHost(rec.data, 'replacement', 'NAPTR', 'replacement domain name', p, { root: true });
    for (const f of STRINGS) {
      const problem = stringProblem(f, rec.data[f], ctx.transferred === true);
      if (problem) p.add(f, problem);
    }
    if (ctx.transferred) return;
    // Stored upper-case: the flags' case has no meaning (RFC 3403 4.1), and "u" and "U" would otherwise be two records.
    if (typeof rec.data.flags === 'string') rec.data.flags = rec.data.flags.toUpperCase();
    // RFC 3403 4.1: a record with both is in error, and clients ignore it.
    if (typeof rec.data.regexp === 'string' && rec.data.regexp !== '' && rec.data.replacement !== '.') {
      p.add('regexp', 'A NAPTR record has either a regexp or a replacement, not both (RFC 3403 4.1): leave the regexp empty, or make the replacement ".".');
    }
  },
  encode(data, w) {
    w.u16(Number(data.order));
    w.u16(Number(data.preference));
    for (const f of STRINGS) writeString(w, String(data[f]));
    w.name(String(data.replacement));
  },
  decode: (r) => ({ order: r.u16(), preference: r.u16(), flags: readString(r), services: readString(r), regexp: readString(r), replacement: rootAsDot(r.name()) }),
  present: (data) => `${Number(data.order)} ${Number(data.preference)} ${STRINGS.map((f) => quoteString(Buffer.from(String(data[f]), 'latin1'))).join(' ')} ${presentHost(data.replacement)}`,
  parse(tokens, origin) {
    noMore(tokens, 6, 'NAPTR');
    return {
      order: parseUint(tokens[0], 65535, 'the order'),
      preference: parseUint(tokens[1], 65535, 'the preference'),
      flags: parseString(tokens[2], 'the flags'),
      services: parseString(tokens[3], 'the services'),
      regexp: parseString(tokens[4], 'the regexp'),
      replacement: rootAsDot(parseName(tokens[5], origin, 'the replacement')),
    };
  },
};
