import { Type } from '@sinclair/typebox';
import { relativeName } from '../names.js';
import { commonFromV1, hostField, nameField, ttlField, uint16Field, validateHostTarget, validateUint16 } from './common.js';
import type { RecordData, RecordType } from './types.js';

interface SrvWire {
  priority: number;
  weight: number;
  port: number;
  target: string;
}

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
function foldProtocol(rec: RecordData, previous?: RecordData): RecordData {
  const parts = splitSrvName(rec.name);
  // An update that changes only Protocol moves the record to the new `_proto` label.
  if (parts && previous && rec.name === previous.name && rec.protocol !== previous.protocol && rec.protocol.trim() !== '') {
    const protocol = rec.protocol.trim().replace(/^_/, '').toLowerCase();
    return { ...rec, protocol, name: [`_${parts.service}`, `_${protocol}`, ...(parts.host ? [parts.host] : [])].join('.') };
  }
  if (parts) return { ...rec, protocol: parts.protocol.toLowerCase() };
  const protocol = (rec.protocol.trim() || DEFAULT_PROTOCOL).replace(/^_/, '').toLowerCase();
  const [service = '', ...rest] = rec.name.split('.');
  const svc = service.startsWith('_') ? service : `_${service}`;
  return { ...rec, protocol, name: [svc, `_${protocol}`, ...rest].join('.') };
}

export const SRV: RecordType = {
  type: 'SRV',
  description: 'Location of a service: _service._protocol name, priority, weight, port and target host',
  apexAllowed: true, // the name rule below already rules out the apex
  additionalTarget: (rec) => rec.target,
  fromV3(rec, ctx, _p, previous) {
    // Relative first, so the zone's own name in any spelling is the apex and the zone's labels are never
    // taken for _service._proto. A name outside the zone is left as sent, for checkRecord to report.
    const name = relativeName(rec.name, ctx.zone);
    if (name === null) return rec;
    return name === '' ? { ...rec, name } : foldProtocol({ ...rec, name }, previous);
  },
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
    const rec = commonFromV1('SRV', body);
    const strip = (v: unknown) => (typeof v === 'string' ? v.replace(/^_/, '') : '');
    const protocol = strip(body.protocol).toLowerCase();
    rec.name = [`_${strip(body.service)}`, `_${protocol}`, ...(rec.name && rec.name !== '@' ? [rec.name] : [])].join('.');
    rec.protocol = protocol;
    for (const f of ['priority', 'weight', 'port'] as const) if (typeof body[f] === 'number') rec[f] = body[f] as number;
    if (typeof body.target === 'string') rec.target = body.target;
    return rec;
  },
  toV1(rec) {
    const parts = splitSrvName(rec.name) ?? { service: rec.name, protocol: rec.protocol, host: '' };
    return {
      service: parts.service,
      protocol: parts.protocol,
      name: parts.host,
      priority: rec.priority,
      weight: rec.weight,
      port: rec.port,
      target: rec.target,
      ttl: rec.ttl,
    };
  },
  validate(rec, _ctx, p) {
    const parts = splitSrvName(rec.name);
    if (!parts) p.add('name', `An SRV record's name must start with _service._protocol (for example _sip._tcp), not '${rec.name}'.`);
    else if (!PROTOCOL.test(parts.protocol)) p.add('protocol', `The SRV protocol '${parts.protocol}' is not valid; use a name such as tcp or udp.`);
    else rec.protocol = parts.protocol.toLowerCase();
    validateHostTarget(rec, 'target host name', p);
    for (const f of ['priority', 'weight', 'port'] as const) validateUint16(rec, f, p);
  },
  toWire: (rec): SrvWire => ({ priority: rec.priority, weight: rec.weight, port: rec.port, target: rec.target }),
  fromWire(data, _zone, name) {
    const d = data as SrvWire;
    return { target: d.target, priority: d.priority, weight: d.weight, port: d.port, protocol: splitSrvName(name)?.protocol ?? '', tag: '' };
  },
};
