/**
 * SOA (RFC 1035 3.3.13): every zone has one, written by the service (or, for a zone mirror, its master);
 * customers set its e-mail and timers through the domain, never as a record. `Soa` is the one shape of its
 * data everywhere (the zone built, a transfer, a zone file); the contact is RNAME, a mailbox as a name.
 */
import { noMore, parseName, parseUint, presentName } from './presentation.js';
import type { RecordType } from './types.js';

/** The fields of an SOA record's data; names absolute, without the trailing dot. (A type, not an interface: it is RecordFields.) */
export type Soa = {
  mname: string;
  rname: string;
  serial: number;
  refresh: number;
  retry: number;
  expire: number;
  minimum: number;
};

const TIMERS = ['serial', 'refresh', 'retry', 'expire', 'minimum'] as const;

/** The SOA fields of a record of type SOA (its data as parse and decode make it). */
export const soaData = (rec: { readonly data: unknown }): Soa => rec.data as Soa;

/** How long a negative answer may be cached: min(SOA TTL, MINIMUM) (RFC 2308 5). */
export const negativeTtl = (soaTtl: number, soa: Soa): number => Math.min(soaTtl, soa.minimum >>> 0);

/** The SOA RNAME of an e-mail address: local part dots escaped (`\.` is a dot inside a label). */
export function rnameOf(email: string): string {
  const at = email.lastIndexOf('@');
  if (at <= 0) return `hostmaster.${email}`;
  return `${email.slice(0, at).replace(/\./g, '\\.')}.${email.slice(at + 1)}`;
}

/** The e-mail address an SOA RNAME stands for: the first label (its `\.` a dot) is the local part. */
export function emailOfRname(rname: string): string {
  let i = 0;
  let local = '';
  for (; i < rname.length && rname[i] !== '.'; i++) {
    if (rname[i] === '\\' && i + 1 < rname.length) i++;
    local += rname[i];
  }
  return i < rname.length ? `${local}@${rname.slice(i + 1)}` : local;
}

export const SOA: RecordType = {
  type: 'SOA',
  code: 6,
  description: 'Start of authority: the zone apex, its primary name server, contact and timers',
  hosted: false,
  apexAllowed: true,
  v1Fields: {},
  v1Required: [],
  validate() {},
  encode(data, w) {
    w.name(String(data.mname), true);
    w.name(String(data.rname), true);
    for (const t of TIMERS) w.u32(Number(data[t] ?? 0));
  },
  decode(r): Soa {
    const mname = r.name();
    const rname = r.name();
    return { mname, rname, serial: r.u32(), refresh: r.u32(), retry: r.u32(), expire: r.u32(), minimum: r.u32() };
  },
  present: (data) => [presentName(String(data.mname)), presentName(String(data.rname)), ...TIMERS.map((t) => String(Number(data[t] ?? 0) >>> 0))].join(' '),
  parse(tokens, origin): Soa {
    noMore(tokens, 7, 'SOA');
    const [mname, rname, ...timers] = tokens;
    const timer = (i: number) => parseUint(timers[i], 0xffffffff, `the ${TIMERS[i]}`);
    return { mname: parseName(mname, origin, 'the primary name server'), rname: parseName(rname, origin, 'the contact mailbox'), serial: timer(0), refresh: timer(1), retry: timer(2), expire: timer(3), minimum: timer(4) };
  },
};
