/**
 * CAA (RFC 8659): `flags`, `tag` (the property) and `value`. Customers
 * get Linode's three tags and flags 0 (Linode exposes no flags); zone mirrors serve whatever flags and tags
 * their master has (128 = issuer critical, `contactemail`, …), which a CA must see as the master sent them.
 */
import { Type } from '@sinclair/typebox';
import type { Problems } from '../errors.js';
import { emailProblem, hostnameProblem } from '../names.js';
import { WireError } from '../labels.js';
import { fromColumns, nameField, ttlField, v3Columns, v4Columns } from './common.js';
import { noMore, parseUint, PresentationError, quoteString, unescape } from './presentation.js';
import type { RecordFields, RecordType, V3Mapping } from './types.js';

/** The tags customers may create (Linode's list). */
const TAGS = ['issue', 'issuewild', 'iodef'] as const;
/** Bounds what customers store; real values, Let's Encrypt's `accounturi` included, are far shorter. */
const MAX_CAA_VALUE = 255;
/** RFC 8659 4.1.1: a tag is ASCII letters and digits only. */
const ANY_TAG = /^[A-Za-z0-9]+$/;
// RFC 8659's value grammars are printable ASCII (and spaces): control characters and non-ASCII are refused.
const PRINTABLE = /^[\x20-\x7e]*$/;
/** RFC 8659 4.2: parameter = tag *WSP "=" *WSP value, value = *(%x21-3A / %x3C-7E); tags like DNS labels. */
const PARAMETER = /^ *[A-Za-z0-9](?:-*[A-Za-z0-9])* *= *[\x21-\x3a\x3c-\x7e]* *$/;

/** Why a domain name in a CAA value is not usable, or null: LDH labels, and no trailing dot (Linode). */
function domainProblem(name: string): string | null {
  if (name.endsWith('.')) return 'must not end with a dot';
  return hostnameProblem(name);
}

/**
 * RFC 8659 4.2/4.3: `[issuer-domain] [";" [parameters]]`. The issuer may be absent: `;` alone means that
 * no CA may issue. Parameters are `key=value` separated by `;`, with no `;` after the last.
 */
function issueProblem(value: string): string | null {
  const semi = value.indexOf(';');
  const issuer = (semi < 0 ? value : value.slice(0, semi)).trim();
  // A common mistake for issuewild, which already means wildcard certificates; the CA is named as for issue.
  if (issuer.startsWith('*')) return `The issuer domain '${issuer}' must be the CA's own domain, without '*'.`;
  if (issuer !== '') {
    const problem = domainProblem(issuer);
    if (problem) return `The issuer domain '${issuer}' ${problem}.`;
  }
  const params = semi < 0 ? '' : value.slice(semi + 1).trim();
  if (params === '') return null;
  const bad = params.split(';').find((param) => !PARAMETER.test(param));
  return bad === undefined ? null : `The parameter '${bad.trim()}' is not of the form key=value (RFC 8659 4.2).`;
}

/** RFC 8659 4.4: where to report a violation: a `mailto:` address or an http(s) URL; Linode also takes a domain. */
function iodefProblem(value: string): string | null {
  const mailto = /^mailto:(.*)$/i.exec(value);
  if (mailto) return emailProblem(mailto[1] ?? '') ? `The iodef address '${value}' is not a mailto: URL with one e-mail address.` : null;
  if (/^https?:/i.test(value)) {
    const url = /^https?:\/\/\S+$/i.test(value) && URL.canParse(value) ? new URL(value) : null;
    return url && !hostnameProblem(url.hostname) ? null : `The iodef URL '${value}' is not an http(s) URL with a host name.`;
  }
  const problem = domainProblem(value);
  return problem ? `The iodef value '${value}' must be a mailto: address, an http(s) URL or a domain; as a domain it ${problem}.` : null;
}

/** Checks what customers may create. */
function validateCustomer(data: RecordFields, p: Problems): void {
  const tag = typeof data.tag === 'string' ? data.tag.trim().toLowerCase() : '';
  const value = typeof data.value === 'string' ? data.value : '';
  data.flags = 0;
  data.tag = tag;
  data.value = value;
  if (!(TAGS as readonly string[]).includes(tag)) {
    p.add('tag', `A CAA record needs a tag: one of ${TAGS.join(', ')}${tag ? `, not '${tag}'` : ''}.`);
    return;
  }
  if (value === '') {
    p.add('value', tag === 'iodef' ? 'A CAA iodef record needs a value.' : `A CAA ${tag} record needs a value; ";" alone means that no CA may issue.`);
    return;
  }
  if (!PRINTABLE.test(value)) {
    p.add('value', 'The CAA value may only hold printable ASCII characters (no control characters).');
    return;
  }
  if (value.length > MAX_CAA_VALUE) {
    p.add('value', `The CAA value must be at most ${MAX_CAA_VALUE} characters long.`);
    return;
  }
  const problem = tag === 'iodef' ? iodefProblem(value) : issueProblem(value);
  if (problem) p.add('value', problem);
}

/** Interface A's columns of CAA (Linode API v4 keeps them). */
const CAA_COLUMNS: V3Mapping = {
  // Linode exposes no flags: customers' records have 0.
  fromV3: (cols) => fromColumns('CAA', cols, { flags: 0, tag: cols.tag, value: cols.target }),
  toV3: (rec) => v3Columns(rec, { tag: String(rec.data.tag), target: String(rec.data.value), priority: Number(rec.data.flags) }),
};

export const CAA: RecordType = {
  type: 'CAA',
  code: 257,
  description: 'Certification authorities allowed to issue certificates for the name (RFC 8659)',
  apexAllowed: true,
  v3: CAA_COLUMNS,
  v4: v4Columns(CAA_COLUMNS, { tag: true }),
  v1Fields: {
    name: nameField,
    tag: Type.Union(
      TAGS.map((t) => Type.Literal(t)),
      { description: 'issue: a CA that may issue certificates for the name; issuewild: one that may issue wildcard certificates; iodef: where CAs report requests that break the policy' },
    ),
    value: Type.String({
      minLength: 1,
      maxLength: MAX_CAA_VALUE,
      description:
        'issue/issuewild: the CA\'s domain, optionally followed by "; key=value" parameters (e.g. "letsencrypt.org; validationmethods=dns-01"); ";" alone means that no CA may. iodef: a "mailto:" address, an http(s) URL or a domain. No trailing dot.',
    }),
    ttl: ttlField,
  },
  v1Required: ['tag', 'value'],
  validate(rec, ctx, p) {
    const { flags = 0, tag, value } = rec.data;
    rec.data = { flags, tag, value };
    if (!ctx.transferred) return validateCustomer(rec.data, p);
    if (typeof tag !== 'string' || !ANY_TAG.test(tag)) p.add('tag', `The CAA tag '${String(tag)}' may only hold ASCII letters and digits (RFC 8659 4.1.1).`);
    if (typeof value !== 'string') p.add('value', 'A CAA record needs a value.');
    if (typeof flags !== 'number' || !Number.isInteger(flags) || flags < 0 || flags > 255) p.add('flags', 'The CAA flags must be a whole number between 0 and 255.');
  },
  encode(data, w) {
    const tag = Buffer.from(String(data.tag), 'latin1');
    if (tag.length < 1 || tag.length > 255) throw new WireError('a CAA tag must hold 1 to 255 octets');
    w.u8(Number(data.flags));
    w.u8(tag.length);
    w.bytes(tag);
    // The value's octets: customers' are printable ASCII; a master's are kept as it sent them (latin1).
    w.bytes(Buffer.from(String(data.value), 'latin1'));
  },
  decode(r) {
    const flags = r.u8();
    const tag = r.bytes(r.u8()).toString('latin1');
    if (tag === '') throw new WireError('a CAA tag must not be empty');
    return { flags, tag, value: r.bytes(r.left).toString('latin1') };
  },
  present: (data) => `${Number(data.flags)} ${String(data.tag)} ${quoteString(Buffer.from(String(data.value), 'latin1'))}`,
  parse(tokens) {
    noMore(tokens, 3, 'CAA');
    const tag = tokens[1]?.text ?? '';
    if (!ANY_TAG.test(tag)) throw new PresentationError(`the CAA tag '${tag}' may only hold ASCII letters and digits`);
    return { flags: parseUint(tokens[0], 255, 'the flags'), tag, value: unescape(tokens[2]?.text ?? '').toString('latin1') };
  },
};
