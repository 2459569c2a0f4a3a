/**
 * The catalog zone (RFC 9432, version 2): the list of zones a fleet of secondaries (Knot, BIND, PowerDNS,
 * NSD) provisions itself from. Pure: the service reads the members and the serial from the store, this
 * builds the zone as served and transferred.
 *
 * Each member sits at `<label>.zones.<catalog>` (PTR to its zone name). The label is derived from the
 * domain's id and its name (`z<id>-<hash of the name>`), so it is the same on every node, unique through
 * the id, and kept for as long as the domain keeps its name. A rename is a change of member: the old
 * name's member ends and the new one begins in the same catalog version (BIND 9.18 keeps serving the old
 * name when only the PTR under a label changes). A domain deleted and created again gets a new id, hence
 * a new label, and consumers start it from scratch (RFC 9432's zone state reset).
 */
import { createHash } from 'node:crypto';
import { DOMAIN_DEFAULTS, isServed, type StoredDomain } from './domain.js';
import { keyOf } from './labels.js';
import { NAME_SERVER_TYPE, nameServerData, type RecordFields } from './records/index.js';
import { soaOf, type ZoneContent, type ZoneRecord } from './zone.js';

/** The catalog is a zone of its own, not a domain: this id, below every domain's, stands for it in the DNS side's maps and events. */
export const CATALOG_ID = 0;

/** The schema version this catalog follows (RFC 9432 3). */
export const CATALOG_VERSION = '2';

/** Resolvers never look a catalog's records up, so their TTLs do not matter; RFC 9432's examples use 0. */
const CATALOG_TTL = 0;

/** One member zone: an active master domain or a zone mirror with a copy. */
export interface CatalogMember {
  id: number;
  /** Zone name, lower case, no trailing dot. */
  domain: string;
  /** The domain's display group (interface A's display_group, interface B's group), '' for none: the member's `group` property. */
  group: string;
}

/** A domain as the catalog sees it: enough to tell whether it is a member, and its member properties. */
export interface CatalogCandidate extends Pick<StoredDomain, 'id' | 'domain' | 'kind' | 'status' | 'displayGroup'> {
  /** For a zone mirror: whether it holds a copy of its zone. */
  hasCopy: boolean;
}

/**
 * The members among `domains`: every served master domain and every served zone mirror with a copy. A
 * mirror whose copy has expired stays a member (each consumer applies the zone's expire time itself).
 */
export function catalogMembers(domains: readonly CatalogCandidate[]): CatalogMember[] {
  return domains
    .filter((d) => isServed(d.status) && (d.kind === 'master' || d.hasCopy))
    .map((d) => ({ id: d.id, domain: d.domain, group: d.displayGroup }));
}

/** The member label of a domain: unique in the catalog through its id (as RFC 9432 asks), and new with a new name. */
export const memberLabel = (id: number, name: string): string => `z${id}-${createHash('sha256').update(name).digest('hex').slice(0, 8)}`;

/**
 * The catalog as a domain, for the parts of the DNS side that handle every zone alike (its SOA, the
 * transfer access list, NOTIFY targets). No account owns it: a customer's TSIG key never opens it.
 */
export function catalogDomain(name: string, serial: number, axfrIps: readonly string[]): StoredDomain {
  return {
    ...DOMAIN_DEFAULTS,
    id: CATALOG_ID,
    accountId: 0,
    serial,
    domain: keyOf(name),
    kind: 'master',
    soaEmail: `hostmaster@${keyOf(name)}`,
    description: 'catalog zone (RFC 9432)',
    axfrIps: [...axfrIps],
    masterTsig: null,
  };
}

/**
 * The catalog's content: SOA, NS `invalid.` (RFC 9432 4: a catalog is not meant to be resolved), the
 * `version` TXT "2", then one PTR per member and a `group` TXT for members that have one, by id.
 */
export function catalogContent(catalog: StoredDomain, members: readonly CatalogMember[], nameservers: readonly string[]): ZoneContent {
  const apex = catalog.domain;
  const rr = (name: string, type: string, data: RecordFields): ZoneRecord => ({ name, type, ttl: CATALOG_TTL, data });
  const answers: ZoneRecord[] = [rr(apex, NAME_SERVER_TYPE.type, nameServerData('invalid')), rr(`version.${apex}`, 'TXT', { text: CATALOG_VERSION })];
  for (const m of [...members].sort((a, b) => a.id - b.id)) {
    const owner = `${memberLabel(m.id, m.domain)}.zones.${apex}`;
    answers.push(rr(owner, 'PTR', { ptrdname: m.domain }));
    if (m.group !== '') answers.push(rr(`group.${owner}`, 'TXT', { text: m.group }));
  }
  return { soa: soaOf(catalog, nameservers), answers };
}
