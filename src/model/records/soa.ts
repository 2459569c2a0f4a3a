/**
 * SOA (RFC 1035 3.3.13): every zone has one, written by the service (or, for a zone mirror, its master);
 * customers set its e-mail and timers through the domain, never as a record.
 */
import { noMore, parseName, parseUint, presentName } from './presentation.js';
import type { RecordType } from './types.js';

const TIMERS = ['serial', 'refresh', 'retry', 'expire', 'minimum'] as const;

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
  decode(r) {
    const mname = r.name();
    const rname = r.name();
    return { mname, rname, serial: r.u32(), refresh: r.u32(), retry: r.u32(), expire: r.u32(), minimum: r.u32() };
  },
  present: (data) => [presentName(String(data.mname)), presentName(String(data.rname)), ...TIMERS.map((t) => String(Number(data[t] ?? 0) >>> 0))].join(' '),
  parse(tokens, origin) {
    noMore(tokens, 7, 'SOA');
    const [mname, rname, ...timers] = tokens;
    const out: Record<string, unknown> = { mname: parseName(mname, origin, 'the primary name server'), rname: parseName(rname, origin, 'the contact mailbox') };
    TIMERS.forEach((t, i) => (out[t] = parseUint(timers[i], 0xffffffff, `the ${t}`)));
    return out;
  },
};
