/**
 * The zone of the import suite: RECORDS records of mixed types (A, AAAA, TXT, MX, CNAME, SRV, CAA) as one
 * RFC 1035 master file (what `PUT /v1/domains/{id}/zonefile` and PowerDNS's zone create take) and as the
 * same records in interface B's bulk-change form (`POST /v1/domains/{id}/changes`).
 */

/** A record as interface B creates it: type and body. */
export interface ImportRecord {
  type: string;
  body: Record<string, unknown>;
  /** The record's line in the master file, relative to the zone's $ORIGIN. */
  line: string;
}

/** The service's name servers (zonehost's default `--ns`): the file's apex NS, skipped by zonehost's import as its own. */
export const NAMESERVERS = ['ns1.zonehost.invalid', 'ns2.zonehost.invalid'];

const v4 = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
const v6 = (i: number) => `2001:db8::${(i >> 16).toString(16)}:${(i & 0xffff).toString(16)}`;

/**
 * The records at name `h<i>` and around it: A always; AAAA at every 2nd; TXT at every 3rd; MX at every
 * 5th; a CNAME `www<i>` to it at every 4th; an SRV `_sip._tcp.h<i>` at every 6th; a CAA at every 25th.
 */
function nameRecords(zone: string, i: number): ImportRecord[] {
  const name = `h${i}`;
  const out: ImportRecord[] = [{ type: 'A', body: { name, address: v4(i) }, line: `${name} A ${v4(i)}` }];
  if (i % 2 === 0) out.push({ type: 'AAAA', body: { name, address: v6(i) }, line: `${name} AAAA ${v6(i)}` });
  if (i % 3 === 0) out.push({ type: 'TXT', body: { name, text: `v=bench record ${i}` }, line: `${name} TXT "v=bench record ${i}"` });
  if (i % 5 === 0) out.push({ type: 'MX', body: { name, priority: 10, mail_server: `mail.${name}.example.net` }, line: `${name} MX 10 mail.${name}.example.net.` });
  if (i % 4 === 0) out.push({ type: 'CNAME', body: { name: `www${i}`, target: `${name}.${zone}` }, line: `www${i} 300 CNAME ${name}` });
  if (i % 6 === 0) {
    out.push({
      type: 'SRV',
      body: { service: 'sip', protocol: 'tcp', name, priority: 10, weight: 5, port: 5060, target: `${name}.${zone}` },
      line: `_sip._tcp.${name} SRV 10 5 5060 ${name}`,
    });
  }
  if (i % 25 === 0) out.push({ type: 'CAA', body: { name, tag: 'issue', value: 'letsencrypt.org' }, line: `${name} CAA 0 issue "letsencrypt.org"` });
  return out;
}

/** The first `count` records of the generator (the SOA and apex NS not counted). */
export function importRecords(zone: string, count: number): ImportRecord[] {
  const out: ImportRecord[] = [];
  for (let i = 0; out.length < count; i++) for (const r of nameRecords(zone, i)) if (out.length < count) out.push(r);
  return out;
}

/** The master file of `zone` with `records`: $ORIGIN, $TTL, the SOA, the service's apex NS, then one record a line. */
export function masterFile(zone: string, records: readonly ImportRecord[]): string {
  return [
    `$ORIGIN ${zone}.`,
    '$TTL 3600',
    `@ IN SOA ${NAMESERVERS[0]}. hostmaster.${zone}. ( 1 10800 3600 604800 300 )`,
    ...NAMESERVERS.map((ns) => `@ IN NS ${ns}.`),
    ...records.map((r) => r.line),
    '',
  ].join('\n');
}

/** The same records as bulk-change creates. */
export function createChanges(records: readonly ImportRecord[]): { changes: Record<string, unknown>[] } {
  return { changes: records.map((r) => ({ op: 'create', type: r.type, ...r.body })) };
}

/** Counts of each type, for the report. */
export function typeCounts(records: readonly ImportRecord[]): string {
  const counts = new Map<string, number>();
  for (const r of records) counts.set(r.type, (counts.get(r.type) ?? 0) + 1);
  return [...counts].map(([t, n]) => `${n} ${t}`).join(', ');
}
