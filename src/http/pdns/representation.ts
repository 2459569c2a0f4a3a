/**
 * Zones, RRsets and the server as PowerDNS 4.7 shapes them. A zone's RRsets are the zone as served (its SOA,
 * the configured name servers beside the customer's apex NS, every record; a zone mirror's last copy), each
 * RRset at the TTL DNS answers it with; contents through the registry's PowerDNS mapping.
 */
import type { StoredDomain } from '../../model/domain.js';
import { recordType, toPdns } from '../../model/records/index.js';
import { withRRsetTtls, type ZoneContent, type ZoneRecord } from '../../model/zone.js';
import { rrsetKey } from '../../model/zone-rules.js';
import { canonical, zoneIdOf } from './names.js';

/** The version this door answers as (what clients that check it see). */
export const PDNS_VERSION = '4.7.3';
export const SERVER_ID = 'localhost';
export const SERVER_URL = `/api/v1/servers/${SERVER_ID}`;
/** A route's path under the plugin's prefix (/api/v1): the one server there is. */
export const serverPath = (path: string): string => `/servers/${SERVER_ID}${path}`;

export interface PdnsRecord {
  content: string;
  disabled: boolean;
}

export interface PdnsRrset {
  name: string;
  type: string;
  ttl: number;
  records: PdnsRecord[];
  comments: never[];
}

/** The server object of `/api/v1/servers` and `/api/v1/servers/localhost`. */
export const serverObject = () => ({
  autoprimaries_url: `${SERVER_URL}/autoprimaries{/autoprimary}`,
  config_url: `${SERVER_URL}/config{/config_setting}`,
  daemon_type: 'authoritative',
  id: SERVER_ID,
  type: 'Server',
  url: SERVER_URL,
  version: PDNS_VERSION,
  zones_url: `${SERVER_URL}/zones{/zone}`,
});

/** What a zone's object says beyond the domain itself: whether it is signed, a mirror's last transfer. */
export interface ZoneFacts {
  dnssec: boolean;
  /** A mirror's last successful transfer, epoch ms; null for none (and for master zones). */
  lastCheck: number | null;
}

/** PowerDNS's kind of a zone: a zone mirror is a Slave; a domain Native or Master as it was declared (both serve and notify alike). */
export const kindOf = (d: StoredDomain): 'Native' | 'Master' | 'Slave' => (d.kind === 'slave' ? 'Slave' : d.primaryKind === 'master' ? 'Master' : 'Native');

/** A zone as the zone list shows it (no RRsets). */
export function zoneSummary(d: StoredDomain, facts: ZoneFacts) {
  const id = zoneIdOf(d.domain);
  // Every change to a zone goes out by NOTIFY at once: its serial is the one last notified.
  const serial = d.serial >>> 0;
  return {
    // PowerDNS's free label of a zone's owner: our domains' display group (Linode's "group").
    account: d.displayGroup,
    catalog: '',
    dnssec: facts.dnssec,
    edited_serial: serial,
    id,
    kind: kindOf(d),
    last_check: facts.lastCheck === null ? 0 : Math.floor(facts.lastCheck / 1000),
    masters: d.kind === 'slave' ? d.masterIps : [],
    name: canonical(d.domain),
    notified_serial: serial,
    serial,
    url: `${SERVER_URL}/zones/${id}`,
  };
}

/** A zone as GET shows it: the summary, the settings PowerDNS keeps per zone, and its RRsets. */
export function zoneObject(d: StoredDomain, facts: ZoneFacts, content: ZoneContent | null) {
  return {
    ...zoneSummary(d, facts),
    api_rectify: false,
    master_tsig_key_ids: [],
    nsec3narrow: false,
    // Our signed zones use NSEC3 with RFC 9276's parameters (SHA-1, no extra iterations, no salt).
    nsec3param: facts.dnssec ? '1 0 0 -' : '',
    rrsets: content ? rrsetsOf(content) : [],
    slave_tsig_key_ids: [],
    soa_edit: '',
    soa_edit_api: 'DEFAULT',
  };
}

/** The zone's records grouped into RRsets, in the order they first appear (the SOA first), at their served TTL. */
export function rrsetsOf(content: ZoneContent): PdnsRrset[] {
  const sets = new Map<string, PdnsRrset>();
  for (const r of withRRsetTtls([content.soa, ...content.answers])) {
    const key = rrsetKey(r);
    const record = { content: contentOf(r), disabled: false };
    const set = sets.get(key);
    if (set) set.records.push(record);
    else sets.set(key, { comments: [], name: canonical(r.name), records: [record], ttl: r.ttl, type: r.type });
  }
  return [...sets.values()];
}

/** A record's content: the registry's PowerDNS form of its data. */
function contentOf(r: ZoneRecord): string {
  const t = recordType(r.type);
  return t ? toPdns(t, r.data) : '';
}
