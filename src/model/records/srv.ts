import { Type } from '@sinclair/typebox';
import { relativeName } from '../names.js';
import { fromColumns, hostField, nameField, presentHost, ttlField, uint16Field, v3Columns, validateHost, validateUint } from './common.js';
import { noMore, parseName, parseUint } from './presentation.js';
import type { RecordData, RecordType, V3Columns, V3Mapping, V4Mapping } from './types.js';

const PROTOCOL = /^[a-z0-9][a-z0-9-]{0,30}$/i;
const DEFAULT_PROTOCOL = 'tcp';

/** Splits a canonical SRV owner "_svc._proto[.sub]" into its parts, or null when it has no such prefix. */
export function splitSrvName(name: string): { service: string; protocol: string; host: string } | null {
  const m = /^_([^.]+)\._([^.]+)(?:\.(.*))?$/.exec(name);
  return m ? { service: m[1] ?? '', protocol: m[2] ?? '', host: m[3] ?? '' } : null;
}

/**
 * Interface A's rule (observed on the live API): when Name already holds `_service._proto`, the protocol
 * is taken from it and Protocol is ignored; otherwise Name is the service (an `_` is added when missing)
 * and `._<Protocol>` is appended, with tcp when no Protocol was given.
 */
function foldProtocol(cols: V3Columns, previous?: RecordData): string {
  const parts = splitSrvName(cols.name);
  // An update that changes only Protocol moves the record to the new `_proto` label.
  if (parts && previous && cols.name === previous.name && cols.protocol !== (splitSrvName(previous.name)?.protocol.toLowerCase() ?? '') && cols.protocol.trim() !== '') {
    const protocol = cols.protocol.trim().replace(/^_/, '').toLowerCase();
    return [`_${parts.service}`, `_${protocol}`, ...(parts.host ? [parts.host] : [])].join('.');
  }
  if (parts) return cols.name;
  const protocol = (cols.protocol.trim() || DEFAULT_PROTOCOL).replace(/^_/, '').toLowerCase();
  const [service = '', ...rest] = cols.name.split('.');
  const svc = service.startsWith('_') ? service : `_${service}`;
  return [svc, `_${protocol}`, ...rest].join('.');
}

/** Interface A's columns of SRV. */
const SRV_COLUMNS: V3Mapping = {
  fromV3(cols, ctx, _p, previous) {
    const data = { priority: cols.priority, weight: cols.weight, port: cols.port, target: cols.target };
    // Relative first, so the zone's own name in any spelling is the apex and the zone's labels are never
    // taken for _service._proto. A name outside the zone is left as sent, for checkRecord to report.
    const name = relativeName(cols.name, ctx.zone);
    if (name === null || name === '') return fromColumns('SRV', { ...cols, name: name ?? cols.name }, data);
    return fromColumns('SRV', { ...cols, name: foldProtocol({ ...cols, name }, previous) }, data);
  },
  toV3: (rec) =>
    v3Columns(rec, {
      target: String(rec.data.target),
      priority: Number(rec.data.priority),
      weight: Number(rec.data.weight),
      port: Number(rec.data.port),
      protocol: splitSrvName(rec.name)?.protocol.toLowerCase() ?? '',
    }),
};

/**
 * Linode API v4's SRV: `service` and `protocol` name the record (its `name` is unused there, Linode's docs say),
 * `_` added to each; a host below them, as a name read back from v4 carries it (`_sip._tcp.sub`), stays. Without
 * a service, the name is read as interface A reads it. Shown with the service and protocol apart.
 */
const SRV_V4: V4Mapping = {
  fromV4(cols, ctx, p, previous) {
    const service = cols.service.trim().replace(/^_/, '');
    if (service === '') return SRV_COLUMNS.fromV3(cols, ctx, p, previous);
    const protocol = (cols.protocol.trim() || DEFAULT_PROTOCOL).replace(/^_/, '').toLowerCase();
    const host = splitSrvName(relativeName(cols.name, ctx.zone) ?? '')?.host ?? '';
    return SRV_COLUMNS.fromV3({ ...cols, name: [`_${service}`, `_${protocol}`, ...(host ? [host] : [])].join('.') }, ctx, p, previous);
  },
  toV4(rec) {
    const parts = splitSrvName(rec.name);
    return { ...SRV_COLUMNS.toV3(rec), service: parts?.service ?? null, protocol: parts?.protocol.toLowerCase() ?? null, tag: null };
  },
};

export const SRV: RecordType = {
  type: 'SRV',
  code: 33,
  description: 'Location of a service: _service._protocol name, priority, weight, port and target host',
  apexAllowed: true, // the name rule below already rules out the apex
  additionalTarget: (data) => String(data.target),
  v3: SRV_COLUMNS,
  v4: SRV_V4,
  v1Fields: {
    service: Type.String({ pattern: '^_?[A-Za-z0-9][A-Za-z0-9-]{0,62}$', description: 'Service name, e.g. "sip" (a leading "_" is optional)' }),
    protocol: Type.String({ pattern: '^_?[A-Za-z0-9][A-Za-z0-9-]{0,30}$', description: 'Protocol, e.g. "tcp" or "udp" (a leading "_" is optional)' }),
    name: Type.String({ ...nameField, description: 'The host the service is offered for, relative to the domain; "" is the domain itself' }),
    priority: uint16Field('Priority; lower is tried first', 10),
    weight: uint16Field('Relative weight among records of the same priority', 5),
    port: uint16Field('TCP or UDP port of the service'),
    target: hostField('Host name that provides the service'),
    ttl: ttlField,
  },
  v1Required: ['service', 'protocol', 'port', 'target'],
  fromV1(body) {
    const strip = (v: unknown) => (typeof v === 'string' ? v.replace(/^_/, '') : '');
    const host = typeof body.name === 'string' && body.name !== '@' ? body.name : '';
    const name = [`_${strip(body.service)}`, `_${strip(body.protocol).toLowerCase()}`, ...(host ? [host] : [])].join('.');
    return { type: 'SRV', name, ttl: typeof body.ttl === 'number' ? body.ttl : 0, data: { priority: body.priority, weight: body.weight, port: body.port, target: body.target } };
  },
  toV1(rec) {
    const parts = splitSrvName(rec.name) ?? { service: rec.name, protocol: '', host: '' };
    return { service: parts.service, protocol: parts.protocol, name: parts.host, ...rec.data, ttl: rec.ttl };
  },
  validate(rec, _ctx, p) {
    const { priority = 10, weight = 5, port, target } = rec.data;
    rec.data = { priority, weight, port, target };
    const parts = splitSrvName(rec.name);
    if (!parts) p.add('name', `An SRV record's name must start with _service._protocol (for example _sip._tcp), not '${rec.name}'.`);
    else if (!PROTOCOL.test(parts.protocol)) p.add('protocol', `The SRV protocol '${parts.protocol}' is not valid; use a name such as tcp or udp.`);
    validateHost(rec.data, 'target', 'SRV', 'target host name', p);
    for (const f of ['priority', 'weight', 'port']) validateUint(rec.data, f, p);
  },
  encode(data, w) {
    w.u16(Number(data.priority));
    w.u16(Number(data.weight));
    w.u16(Number(data.port));
    w.name(String(data.target));
  },
  decode: (r) => ({ priority: r.u16(), weight: r.u16(), port: r.u16(), target: r.name() }),
  present: (data) => `${Number(data.priority)} ${Number(data.weight)} ${Number(data.port)} ${presentHost(data.target)}`,
  parse(tokens, origin) {
    noMore(tokens, 4, 'SRV');
    return {
      priority: parseUint(tokens[0], 65535, 'the priority'),
      weight: parseUint(tokens[1], 65535, 'the weight'),
      port: parseUint(tokens[2], 65535, 'the port'),
      target: parseName(tokens[3], origin, 'the target host name'),
    };
  },
};
