/** Name, address and e-mail rules shared by every record type and both interfaces. */
import { isIP, isIPv4, isIPv6, SocketAddress } from 'node:net';

export const MAX_NAME_LENGTH = 253; // presentation form without the trailing dot (255 octets on the wire)
export const MAX_LABEL_LENGTH = 63;

const LDH_LABEL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/i;
// Names in records may hold underscores (_acme-challenge, _sip._tcp), as owners and as targets.
const UNDERSCORE_LABEL = /^[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?$/i;

export function labelsOf(name: string): string[] {
  return name === '' ? [] : name.split('.');
}

/**
 * Whole names of such labels, each of 1 to MAX_LABEL_LENGTH characters: one test of a name that is valid (nearly
 * every name checked, 10,000 of them in an import), where splitting it and testing each label cost several times more.
 */
const LDH_NAME = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;
const UNDERSCORE_NAME = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*$/i;

/** Why `name` (no trailing dot) is not a valid host name, or null. `underscore` allows `_` in labels, `wildcard` a leading `*` label. */
export function hostnameProblem(name: string, opts: { underscore?: boolean; wildcard?: boolean; minLabels?: number } = {}): string | null {
  if (name.length <= MAX_NAME_LENGTH && (opts.minLabels ?? 1) <= 1) {
    const rest = opts.wildcard && name.startsWith('*.') ? name.slice(2) : name;
    if ((opts.underscore ? UNDERSCORE_NAME : LDH_NAME).test(rest)) return null;
  }
  // Invalid, or labels to count: the rules one by one, naming what is wrong.
  if (name.length === 0) return 'must not be empty';
  if (name.length > MAX_NAME_LENGTH) return `must be at most ${MAX_NAME_LENGTH} characters long`;
  const labels = labelsOf(name);
  if (labels.length < (opts.minLabels ?? 1)) return `must have at least ${opts.minLabels} labels`;
  for (const [i, label] of labels.entries()) {
    if (label.length === 0) return 'must not contain empty labels';
    if (label.length > MAX_LABEL_LENGTH) return `has a label longer than ${MAX_LABEL_LENGTH} characters`;
    if (label === '*' && opts.wildcard && i === 0) continue;
    // A wildcard only matches queries for owner names; a host name holding one would be looked up literally.
    if (label === '*' && !opts.wildcard) return "must not contain a * label (only a record's own name can be a wildcard)";
    const re = opts.underscore ? UNDERSCORE_LABEL : LDH_LABEL;
    if (!re.test(label)) {
      return 'may only contain letters, digits and hyphens in dot-separated labels that neither start nor end with a hyphen';
    }
  }
  return null;
}

/** A zone name: at least two LDH labels, top-level label not numeric. */
export function zoneNameProblem(name: string): string | null {
  const p = hostnameProblem(name, { minLabels: 2 });
  if (p) return p;
  const tld = labelsOf(name).at(-1) ?? '';
  if (/^[0-9]+$/.test(tld)) return 'must end in a top-level domain, not a number';
  return null;
}

/** Normalises a zone name as typed by a user: trims, drops one trailing dot, lower-cases. */
export function normalizeZoneName(raw: string): string {
  return raw.trim().replace(/\.$/, '').toLowerCase();
}

/**
 * Turns an owner name given by a client into the name relative to the zone ("" = apex).
 * Accepts "", "@", relative names, and FQDNs inside the zone with or without the trailing dot.
 * Returns null when the name is an FQDN outside the zone.
 */
export function relativeName(raw: string, zone: string): string | null {
  let name = raw.trim();
  if (name === '' || name === '@') return '';
  const absolute = name.endsWith('.');
  if (absolute) name = name.slice(0, -1);
  // The zone's name at the end, after a dot or alone, in any letter case (only that end is lower-cased).
  const at = name.length - zone.length;
  if (at >= 0 && (at === 0 || name.charCodeAt(at - 1) === 46) && name.slice(at).toLowerCase() === zone) return at === 0 ? '' : name.slice(0, at - 1);
  return absolute ? null : name;
}

/** The absolute name (no trailing dot) of a relative owner name. */
export function absoluteName(relative: string, zone: string): string {
  return relative === '' ? zone : `${relative}.${zone}`;
}

/** A host name used as record data (CNAME/MX/NS/SRV target); one trailing dot is dropped. */
export function normalizeTarget(raw: string): string {
  return raw.trim().replace(/\.$/, '');
}

export const isIPv4Address = (s: string): boolean => isIPv4(s);
export const isIPv6Address = (s: string): boolean => isIPv6(s) && !s.includes('%');
export const isIPAddress = (s: string): boolean => isIPv4Address(s) || isIPv6Address(s);

/** A network: its address as written (host bits are ignored where it is matched), prefix length and family. */
export interface Cidr {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

/** "ADDRESS/PREFIX" or a bare address (the host's own network), or null when it is neither. */
export function cidrOf(text: string): Cidr | null {
  const [address = '', prefixText, extra] = text.trim().split('/');
  const v = isIP(address);
  const max = v === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
  if (v === 0 || address.includes('%') || extra !== undefined || !(prefix >= 0 && prefix <= max)) return null;
  return { address, prefix, family: v === 4 ? 'ipv4' : 'ipv6' };
}

/**
 * An IPv6 address (isIPv6Address) in the canonical text of RFC 5952: lower case, no leading zeros, the
 * longest run of zero groups as `::`, IPv4-mapped addresses dotted (`::ffff:192.0.2.1`). Node's address
 * parser writes it so (libuv's inet_ntop); equal addresses then compare equal as text.
 */
export function canonicalIPv6(s: string): string {
  let c = canonicalKept.get(s);
  if (c === undefined) {
    c = new SocketAddress({ address: s, family: 'ipv6' }).address;
    if (canonicalKept.size >= 4096) canonicalKept.clear();
    canonicalKept.set(s, c).set(c, c);
  }
  return c;
}
/**
 * canonicalIPv6's recent answers, each also as its own: an address is made canonical where it is read (a
 * master file, an API body) and again where its record is validated, and SocketAddress is slow beside a lookup.
 */
const canonicalKept = new Map<string, string>();

// Deliberately simple: one @, a non-empty local part without spaces, and a host name domain.
export function emailProblem(raw: string): string | null {
  if (raw.length > 254) return 'must be at most 254 characters long';
  const at = raw.lastIndexOf('@');
  if (at <= 0) return 'must be an e-mail address such as hostmaster@example.com';
  const local = raw.slice(0, at);
  const domain = raw.slice(at + 1);
  if (!/^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+$/.test(local) || local.startsWith('.') || local.endsWith('.') || local.includes('..') || local.length > 64) {
    return 'must be an e-mail address such as hostmaster@example.com';
  }
  if (hostnameProblem(domain, { minLabels: 2 })) return 'must be an e-mail address such as hostmaster@example.com';
  return null;
}

/**
 * Parses an address list as interface A stores it ("1.2.3.4;2001:db8::1;", also ","-separated).
 * Returns the unique addresses in order and the entries that are not addresses.
 */
export function parseAddressList(raw: string): { addresses: string[]; invalid: string[] } {
  const addresses: string[] = [];
  const invalid: string[] = [];
  const trimmed = raw.trim();
  if (trimmed === '' || trimmed.toLowerCase() === 'none') return { addresses, invalid };
  for (const part of trimmed.split(/[;,\s]+/)) {
    if (part === '') continue;
    if (!isIPAddress(part)) invalid.push(part);
    else if (!addresses.includes(part)) addresses.push(part);
  }
  return { addresses, invalid };
}
