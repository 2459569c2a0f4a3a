/**
 * The zones of the dnssec suite: generated records (A at every name, AAAA, TXT and MX at some, an apex MX,
 * a wildcard, a delegation with glue), loaded into a store straight through the store layer, and the
 * dnsperf query mix over them (existing names, NXDOMAIN, NODATA, wildcard expansions, referrals).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DOMAIN_DEFAULTS, type DomainData } from '../../src/model/domain.js';
import { checkRecord, fromV1, recordTypeOrThrow } from '../../src/model/records/index.js';
import { openStore } from '../../src/store/open.js';

/** A record as interface B takes it: type and body. */
export interface GenRecord {
  type: string;
  body: Record<string, unknown>;
}

const v4 = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
const v6 = (i: number) => `2001:db8::${(i >> 16).toString(16)}:${(i & 0xffff).toString(16)}`;

/** The records of name `h<i>`: A always, AAAA at even i, TXT at every 4th, MX at every 10th. */
function nameRecords(i: number): GenRecord[] {
  const name = `h${i}`;
  const out: GenRecord[] = [{ type: 'A', body: { name, address: v4(i) } }];
  if (i % 2 === 0) out.push({ type: 'AAAA', body: { name, address: v6(i) } });
  if (i % 4 === 0) out.push({ type: 'TXT', body: { name, text: `record ${i}` } });
  if (i % 10 === 0) out.push({ type: 'MX', body: { name, priority: 10, mail_server: `mail.${name}.example.net` } });
  return out;
}

/** Names and types that exist, for the query mix (kept in step with nameRecords). */
const has = (i: number, type: string) => type === 'A' || (type === 'AAAA' && i % 2 === 0) || (type === 'TXT' && i % 4 === 0) || (type === 'MX' && i % 10 === 0);

/** The zone's fixed records: apex MX, mail host, a wildcard (A and TXT), a delegation with its glue. */
function fixedRecords(zone: string): GenRecord[] {
  return [
    { type: 'MX', body: { name: '', priority: 10, mail_server: `mail.${zone}` } },
    { type: 'A', body: { name: 'mail', address: '192.0.2.25' } },
    { type: 'A', body: { name: '*.wild', address: '192.0.2.99' } },
    { type: 'TXT', body: { name: '*.wild', text: 'wildcard' } },
    { type: 'NS', body: { name: 'sub', nameserver: `ns.sub.${zone}` } },
    { type: 'A', body: { name: 'ns.sub', address: '192.0.2.53' } },
  ];
}

/** A zone of the fixed records and names h0, h1, … until it holds `records` records (the SOA and apex NS not counted); returns the records and the number of h-names. */
export function zoneRecords(zone: string, records: number): { records: GenRecord[]; names: number } {
  const out = fixedRecords(zone);
  let i = 0;
  while (out.length < records) {
    for (const r of nameRecords(i)) if (out.length < records) out.push(r);
    i++;
  }
  return { records: out, names: i };
}

/** Adds `zone` (master, transfers allowed to 127.0.0.1) with `records` for the user "bench" straight through the store; returns its id. */
export async function loadZone(db: string, zone: string, records: readonly GenRecord[]): Promise<number> {
  const store = await openStore(db);
  try {
    const account = await store.accountByName('bench');
    if (!account) throw new Error('no user bench');
    const now = Date.now();
    const d: DomainData = { ...DOMAIN_DEFAULTS, domain: zone, kind: 'master', soaEmail: `hostmaster@${zone}`, axfrIps: ['127.0.0.1'] };
    const { id } = await store.transaction((tx) => tx.insertDomain(account.id, d, Math.floor(now / 1000), now));
    for (let i = 0; i < records.length; i += 5000) {
      await store.transaction(async (tx) => {
        for (const r of records.slice(i, i + 5000)) {
          const rec = fromV1(recordTypeOrThrow(r.type), r.body);
          checkRecord(rec, { zone }).throwIfAny();
          await tx.insertRecord(id, rec, now);
        }
      });
    }
    return id;
  } finally {
    await store.close();
  }
}

/** The kinds of query in the mix, with their share (of 20). */
export const MIX = [
  { kind: 'existing', share: 10 },
  { kind: 'NXDOMAIN', share: 4 },
  { kind: 'NODATA', share: 3 },
  { kind: 'wildcard', share: 2 },
  { kind: 'referral', share: 1 },
] as const;
export type QueryKind = (typeof MIX)[number]['kind'];

/** The i-th query of kind `kind` in a zone of `names` h-names: [name, type]. */
export function sampleQuery(zone: string, names: number, kind: QueryKind, i: number): [string, string] {
  const n = (i * 7919) % names;
  switch (kind) {
    case 'existing': {
      const type = (['A', 'AAAA', 'TXT', 'MX'] as const).find((t, k) => k >= i % 4 && has(n, t)) ?? 'A';
      return [`h${n}.${zone}`, type];
    }
    case 'NXDOMAIN':
      return [`nx${i}.${zone}`, 'A'];
    case 'NODATA':
      return [`h${n}.${zone}`, n % 2 ? 'AAAA' : 'SRV'];
    case 'wildcard':
      return [`w${i}.wild.${zone}`, i % 2 ? 'A' : 'TXT'];
    case 'referral':
      return [`host${i % 50}.sub.${zone}`, 'A'];
  }
}

/** The dnsperf query file: `count` queries in the MIX's proportions, interleaved. */
export function queryFile(dir: string, zone: string, names: number, count: number): string {
  const slots = MIX.flatMap((m) => Array.from({ length: m.share }, () => m.kind));
  const lines: string[] = [];
  for (let i = 0; i < count; i++) lines.push(sampleQuery(zone, names, slots[i % slots.length] as QueryKind, i).join(' '));
  const path = join(dir, `queries-${zone}.txt`);
  writeFileSync(path, lines.join('\n') + '\n');
  return path;
}
