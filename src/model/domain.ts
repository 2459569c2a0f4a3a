/** Domains (master zones) and zone mirrors (slave zones): fields, defaults and rules. */
import { Problems } from './errors.js';
import { X509Certificate } from 'node:crypto';
import { emailProblem, hostnameProblem, isIPAddress, normalizeZoneName, zoneNameProblem } from './names.js';
import { checkKeyFields, type TsigKeyRef } from './tsig-key.js';
import { roundTtl, ttlProblem } from './ttl.js';

export type DomainKind = 'master' | 'slave';

/**
 * How a zone mirror verifies its masters' certificate over TLS (RFC 8310's strict profile, by authentication
 * name): it must be valid for `name` (a host name or an IP address) and issued by one of `ca` (certificates in
 * PEM) or, when `ca` is null, by a CA the system trusts.
 */
export interface MasterTlsAuth {
  name: string;
  ca: string | null;
}

/** The largest CA bundle a mirror keeps (a few dozen certificates). */
export const MAX_TLS_CA_LENGTH = 65_536;

/**
 * How a master domain was declared through the PowerDNS API: PowerDNS's two kinds of a zone it is the primary
 * of, Native (replicated by other means) and Master (sends NOTIFY). zonehost serves and notifies both alike;
 * the kind is kept so that the PowerDNS door answers what a client set (Terraform replaces a zone whose kind
 * reads back otherwise).
 */
export type PrimaryKind = 'native' | 'master';
export const PRIMARY_KINDS: readonly PrimaryKind[] = ['native', 'master'];

/** Interface A's numeric status: 0 disabled, 1 active, 2 edit mode (served like active). */
export type DomainStatus = 0 | 1 | 2;
export const DOMAIN_STATUSES: readonly DomainStatus[] = [0, 1, 2];

/** Interface B's status names, defined once for both directions. */
export type StatusName = 'active' | 'inactive';
export const statusName = (s: DomainStatus): StatusName => (s === 0 ? 'inactive' : 'active');
export const statusFromName = (s: StatusName): DomainStatus => (s === 'inactive' ? 0 : 1);
/** Linode API v4's status names (the v4 door); v4's fourth, `has_errors`, is Linode's own finding, never set here. */
export type V4StatusName = 'disabled' | 'active' | 'edit_mode';
export const V4_STATUS_NAMES: readonly V4StatusName[] = ['disabled', 'active', 'edit_mode'];
export const v4StatusName = (s: DomainStatus): V4StatusName => V4_STATUS_NAMES[s] ?? 'active';
export const statusFromV4Name = (s: V4StatusName): DomainStatus => V4_STATUS_NAMES.indexOf(s) as DomainStatus;
/** Whether the DNS server answers for a domain in this status. */
export const isServed = (s: DomainStatus): boolean => s !== 0;
/** Whether we are the primary of a domain's zone as served: a master, served (the zone DNS UPDATE may change). */
export const isServedMaster = (d: { kind: DomainKind; status: DomainStatus }): boolean => d.kind === 'master' && isServed(d.status);

export const MAX_ADDRESS_LIST = 32;
export const MAX_DESCRIPTION = 253;
export const MAX_DISPLAY_GROUP = 50;
/** Linode's tag rules: 3 to 50 characters each; at most this many on one domain. */
export const MAX_TAGS = 100;
export const MIN_TAG_LENGTH = 3;
export const MAX_TAG_LENGTH = 50;

export interface DomainData {
  domain: string;
  kind: DomainKind;
  soaEmail: string;
  description: string;
  /** SOA timers and default TTL in seconds; 0 means the documented default. */
  refresh: number;
  retry: number;
  expire: number;
  ttl: number;
  status: DomainStatus;
  masterIps: string[];
  axfrIps: string[];
  displayGroup: string;
  /** A zone mirror's key for its masters (their TSIG key: SOA queries, transfers, NOTIFY); null for none. */
  masterTsig: TsigKeyRef | null;
  /** A zone mirror asks its masters over TLS (RFC 9103: SOA queries and transfers, on port 853); false: over UDP and TCP. */
  masterTls: boolean;
  /** With `masterTls`: how the masters' certificate is verified; null: it is not (opportunistic TLS). */
  masterTlsAuth: MasterTlsAuth | null;
  /** Labels for the owner's own grouping (Linode API v4's `tags`), sorted, without duplicates; nothing else reads them. */
  tags: string[];
  /** The PowerDNS API's kind of a master domain (see PrimaryKind). */
  primaryKind: PrimaryKind;
}

export interface StoredDomain extends DomainData {
  id: number;
  accountId: number;
  serial: number;
}

export const DOMAIN_DEFAULTS: Omit<DomainData, 'domain' | 'kind'> = {
  soaEmail: '',
  description: '',
  refresh: 0,
  retry: 0,
  expire: 0,
  ttl: 0,
  status: 1,
  masterIps: [],
  axfrIps: [],
  displayGroup: '',
  masterTsig: null,
  masterTls: false,
  masterTlsAuth: null,
  tags: [],
  primaryKind: 'native',
};

/** A domain as the audit trail keeps it: a mirror's master key by name and algorithm, never its secret. */
export function withoutSecrets<T extends DomainData>(d: T): Omit<T, 'masterTsig'> & { masterTsig: Omit<TsigKeyRef, 'secret'> | null } {
  return { ...d, masterTsig: d.masterTsig && { name: d.masterTsig.name, algorithm: d.masterTsig.algorithm } };
}

const TIMERS = [
  ['refresh', 'refresh interval'],
  ['retry', 'retry interval'],
  ['expire', 'expire time'],
  ['ttl', 'default TTL'],
] as const;

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g;

/** Normalises (the name's case, a trailing dot) and checks how a mirror verifies its masters' certificate. */
function checkTlsAuth(p: Problems, auth: MasterTlsAuth, tls: boolean): void {
  if (!tls) p.add('masterTlsAuth', "The masters' certificate can only be verified when the mirror transfers over TLS (tls: true).");
  auth.name = isIPAddress(auth.name) ? auth.name : normalizeZoneName(auth.name);
  const nameProblem = isIPAddress(auth.name) ? null : hostnameProblem(auth.name);
  if (nameProblem) p.add('masterTlsAuth.name', `The name the masters' certificate must hold, '${auth.name}', ${nameProblem} (or be an IP address).`);
  if (auth.ca === null) return;
  if (auth.ca.length > MAX_TLS_CA_LENGTH) return p.add('masterTlsAuth.ca', `The CA certificates must be at most ${MAX_TLS_CA_LENGTH} characters of PEM.`);
  const blocks = auth.ca.match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) return p.add('masterTlsAuth.ca', 'The CA certificates must be PEM: one or more -----BEGIN CERTIFICATE----- blocks.');
  for (const [i, block] of blocks.entries()) {
    try {
      new X509Certificate(block);
    } catch (e) {
      p.add('masterTlsAuth.ca', `CA certificate ${i + 1} cannot be read: ${(e as Error).message}.`);
    }
  }
}

/** Normalises (name case, timer rounding) and checks a domain in place; returns every problem found. */
export function checkDomain(d: DomainData): Problems {
  const p = new Problems();
  d.domain = normalizeZoneName(d.domain);
  const nameProblem = zoneNameProblem(d.domain);
  if (nameProblem) p.add('domain', `The domain name '${d.domain}' ${nameProblem}.`);
  if (d.kind !== 'master' && d.kind !== 'slave') p.add('kind', `The domain type must be master or slave.`);
  if (d.kind === 'master') {
    if (d.soaEmail.trim() === '') p.add('soaEmail', 'A master domain needs an SOA e-mail address.');
    else {
      d.soaEmail = d.soaEmail.trim();
      const e = emailProblem(d.soaEmail);
      if (e) p.add('soaEmail', `The SOA e-mail address '${d.soaEmail}' ${e}.`);
    }
  } else if (d.soaEmail.trim() !== '') {
    const e = emailProblem(d.soaEmail.trim());
    if (e) p.add('soaEmail', `The SOA e-mail address '${d.soaEmail}' ${e}.`);
  }
  if (d.kind === 'slave' && d.masterIps.length === 0) p.add('masterIps', 'A slave domain (zone mirror) needs at least one master IP address.');
  for (const [field, label] of TIMERS) {
    const problem = ttlProblem(d[field]);
    if (problem) p.add(field, `The ${label} ${problem}.`);
    else d[field] = roundTtl(d[field]);
  }
  if (!DOMAIN_STATUSES.includes(d.status)) p.add('status', 'The status must be 0 (disabled), 1 (active) or 2 (edit mode).');
  if (!PRIMARY_KINDS.includes(d.primaryKind)) p.add('primaryKind', 'The kind of a master zone must be native or master.');
  for (const field of ['masterIps', 'axfrIps'] as const) {
    const label = field === 'masterIps' ? 'master' : 'AXFR';
    for (const ip of d[field]) if (!isIPAddress(ip)) p.add(field, `'${ip}' in the ${label} IP list is not an IPv4 or IPv6 address.`);
    if (d[field].length > MAX_ADDRESS_LIST) p.add(field, `The ${label} IP list may hold at most ${MAX_ADDRESS_LIST} addresses.`);
    d[field] = [...new Set(d[field])];
  }
  // A mirror made a master (interface A can, and cannot see the key) stops pulling: its master key goes with it.
  if (d.kind === 'master') {
    d.masterTsig = null;
    d.masterTls = false;
    d.masterTlsAuth = null;
  }
  if (d.masterTlsAuth !== null) {
    d.masterTlsAuth = { ...d.masterTlsAuth };
    checkTlsAuth(p, d.masterTlsAuth, d.masterTls);
  }
  if (d.masterTsig !== null) {
    d.masterTsig = { ...d.masterTsig };
    checkKeyFields(p, 'masterTsig.', d.masterTsig);
  }
  if (d.description.length > MAX_DESCRIPTION) p.add('description', `The description must be at most ${MAX_DESCRIPTION} characters long.`);
  if (d.displayGroup.length > MAX_DISPLAY_GROUP) p.add('displayGroup', `The display group must be at most ${MAX_DISPLAY_GROUP} characters long.`);
  d.tags = [...new Set(d.tags)].sort();
  for (const tag of d.tags) {
    if (tag.length < MIN_TAG_LENGTH || tag.length > MAX_TAG_LENGTH) p.add('tags', `The tag '${tag}' must be ${MIN_TAG_LENGTH} to ${MAX_TAG_LENGTH} characters long.`);
  }
  if (d.tags.length > MAX_TAGS) p.add('tags', `A domain may have at most ${MAX_TAGS} tags.`);
  return p;
}
