/**
 * CAA (RFC 8659). Columns: `tag` the property tag, `target` the value, `priority` the flags byte. Customers
 * get Linode's three tags and flags 0 (Linode exposes no flags); zone mirrors serve whatever flags and tags
 * their master has (128 = issuer critical, `contactemail`, …), which a CA must see as the master sent them.
 */
import { Type } from '@sinclair/typebox';
import type { Problems } from '../errors.js';
import { emailProblem, hostnameProblem } from '../names.js';
import { commonFromV1, nameField, ttlField } from './common.js';
import type { RecordData, RecordType } from './types.js';

interface CaaWire {
  flags: number;
  tag: string;
  value: string;
}

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
function validateCustomer(rec: RecordData, p: Problems): void {
  rec.tag = rec.tag.trim().toLowerCase();
  rec.priority = 0;
  if (!(TAGS as readonly string[]).includes(rec.tag)) {
    p.add('tag', `A CAA record needs a tag: one of ${TAGS.join(', ')}${rec.tag ? `, not '${rec.tag}'` : ''}.`);
    return;
  }
  if (rec.target === '') {
    p.add('target', rec.tag === 'iodef' ? 'A CAA iodef record needs a value.' : `A CAA ${rec.tag} record needs a value; ";" alone means that no CA may issue.`);
    return;
  }
  if (!PRINTABLE.test(rec.target)) {
    p.add('target', 'The CAA value may only hold printable ASCII characters (no control characters).');
    return;
  }
  if (rec.target.length > MAX_CAA_VALUE) {
    p.add('target', `The CAA value must be at most ${MAX_CAA_VALUE} characters long.`);
    return;
  }
  const problem = rec.tag === 'iodef' ? iodefProblem(rec.target) : issueProblem(rec.target);
  if (problem) p.add('target', problem);
}

export const CAA: RecordType = {
  type: 'CAA',
  description: 'Certification authorities allowed to issue certificates for the name (RFC 8659)',
  apexAllowed: true,
  fromV3: (rec) => rec,
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
  fromV1(body) {
    const rec = commonFromV1('CAA', body);
    if (typeof body.tag === 'string') rec.tag = body.tag;
    if (typeof body.value === 'string') rec.target = body.value;
    return rec;
  },
  toV1: (rec) => ({ name: rec.name, tag: rec.tag, value: rec.target, ttl: rec.ttl }),
  validate(rec, ctx, p) {
    if (!ctx.transferred) validateCustomer(rec, p);
    else if (!ANY_TAG.test(rec.tag)) p.add('tag', `The CAA tag '${rec.tag}' may only hold ASCII letters and digits (RFC 8659 4.1.1).`);
  },
  toWire: (rec): CaaWire => ({ flags: rec.priority, tag: rec.tag, value: rec.target }),
  zoneFileFields: (data) => {
    const d = data as CaaWire;
    return [d.flags, d.tag, Buffer.from(d.value, 'utf8')];
  },
  fromWire(data) {
    const d = data as CaaWire;
    return { target: d.value, priority: d.flags, weight: 5, port: 80, protocol: '', tag: d.tag };
  },
};
