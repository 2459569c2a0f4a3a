/** domain.resource.create, .update, .delete, .list: the overloaded arguments mapped through the registry. */
import { NotFoundError, Problems, ValidationError } from '../../../model/errors.js';
import { recordType, V3_DEFAULTS, V3_TYPES, type RecordData, type RecordType, type StoredRecord, type V3Columns } from '../../../model/records/index.js';
import type { Args, ParamSpec } from '../args.js';
import { param, type Action, type ActionContext } from './types.js';

/** The types interface A creates and lists: those the real API had. Records of other types are interface B's alone. */
const V3_NAMES = V3_TYPES.map((t) => t.type);

const P = {
  domainId: param('DomainID', 'numeric', true),
  resourceId: param('ResourceID', 'numeric', true),
  // Worded as the live api.spec was ("One of: NS, MX, A, AAAA, CNAME, TXT, SRV or CAA"), listing the registry's types.
  // The texts of the other arguments are the recorded api.spec's (test/v3/spec.test.ts pins them), not ours to derive.
  type: param('Type', 'string', true, `One of: ${V3_NAMES.slice(0, -1).join(', ')} or ${V3_NAMES.at(-1)}`),
  name: param('Name', 'string', false, 'The hostname or FQDN.  When Type=MX the subdomain to delegate to the Target MX server.', V3_DEFAULTS.name),
  target: param(
    'Target',
    'string',
    false,
    "When Type=MX the hostname.  When Type=CNAME the target of the alias.  When Type=TXT or CAA the value of the record. When Type=A or AAAA the token of '[remote_addr]' will be substituted with the IP address of the request.",
    V3_DEFAULTS.target,
  ),
  priority: param('Priority', 'numeric', false, 'Priority for MX and SRV records, 0-65535', V3_DEFAULTS.priority),
  weight: param('Weight', 'numeric', false, '', V3_DEFAULTS.weight),
  port: param('Port', 'numeric', false, '', V3_DEFAULTS.port),
  protocol: param('Protocol', 'string', false, 'The protocol to append to an SRV record.  Ignored on other record types.', V3_DEFAULTS.protocol),
  ttl: param('TTL_sec', 'numeric', false, 'TTL.  Leave as 0 to accept our default.', V3_DEFAULTS.ttl),
  // The 2018+ api.spec gives no default; a missing Tag is the column's "".
  tag: param('Tag', 'string', false, 'The tag attribute for a CAA record.  One of issue, issuewild, iodef.  Ignored on other record types.'),
};

const FIELDS: [keyof V3Columns, ParamSpec][] = [
  ['name', P.name],
  ['target', P.target],
  ['priority', P.priority],
  ['weight', P.weight],
  ['port', P.port],
  ['protocol', P.protocol],
  ['ttl', P.ttl],
  ['tag', P.tag],
];

const withoutDefault = ({ default: _d, ...p }: ParamSpec): ParamSpec => p;

/** The overloaded fields given in the request, laid over `base`. */
function overlay(args: Args, base: V3Columns, all: boolean): V3Columns {
  const cols = { ...base };
  for (const [field, spec] of FIELDS) {
    if (!all && !args.given(spec)) continue;
    (cols as unknown as Record<string, unknown>)[field] = spec.type === 'numeric' ? args.int(spec) : args.str(spec);
  }
  return cols;
}

/** The type of a stored record as interface A sees it: records of types it does not know are not there. */
function v3Type(r: StoredRecord): RecordType & Required<Pick<RecordType, 'v3'>> {
  const t = recordType(r.type);
  if (!t?.v3) throw new NotFoundError('record');
  return t as RecordType & Required<Pick<RecordType, 'v3'>>;
}

/**
 * Interface A's columns as a canonical record of `type` in `zone`, through the type's mapping (SRV protocol
 * folding, `[remote_addr]`); a type interface A does not know is refused here.
 */
function adapt(type: string, cols: V3Columns, ctx: ActionContext, zone: string, previous?: RecordData): RecordData {
  const t = recordType(type);
  if (!t?.v3) throw ValidationError.one('type', `The record type '${type}' is not supported; use one of ${V3_NAMES.join(', ')}.`);
  const p = new Problems();
  const out = t.v3.fromV3(cols, { zone, remoteAddr: ctx.remoteAddr }, p, previous);
  p.throwIfAny();
  return out;
}

/** A record as domain.resource.list shows it (upper-case keys; TYPE upper-case, which every known client accepts). */
export function v3Record(r: StoredRecord) {
  const c = v3Type(r).v3.toV3(r);
  return {
    DOMAINID: r.domainId,
    RESOURCEID: r.id,
    NAME: c.name,
    TYPE: r.type,
    TARGET: c.target,
    TTL_SEC: c.ttl,
    PRIORITY: c.priority,
    WEIGHT: c.weight,
    PORT: c.port,
    PROTOCOL: c.protocol,
    TAG: c.tag,
  };
}

/** The real API's order: NAME compared with letters upper-cased (so "_acme" sorts after "localhost"), then RESOURCEID. */
function byName(a: StoredRecord, b: StoredRecord): number {
  const x = a.name.toUpperCase();
  const y = b.name.toUpperCase();
  return x < y ? -1 : x > y ? 1 : a.id - b.id;
}

export const resourceActions: Action[] = [
  {
    name: 'domain.resource.create',
    description: 'Create a domain record.',
    params: [P.domainId, P.type, ...FIELDS.map(([, spec]) => spec)],
    throws: 'NOACCESS,VALIDATION',
    auth: true,
    batchable: true,
    async run(ctx) {
      const { args, services, actor } = ctx;
      const domainId = args.int(P.domainId);
      const type = args.str(P.type).trim();
      const cols = overlay(args, { ...V3_DEFAULTS }, true);
      const created = await services.records.create(actor, domainId, (zone) => adapt(type, cols, ctx, zone));
      return { ResourceID: created.id };
    },
  },
  {
    name: 'domain.resource.update',
    description: 'Update a domain record.',
    params: [P.resourceId, { ...P.domainId, required: false }, ...FIELDS.map(([, spec]) => withoutDefault(spec))],
    throws: 'NOTFOUND,VALIDATION',
    auth: true,
    batchable: true,
    async run(ctx) {
      const { args, services, actor } = ctx;
      const resourceId = args.int(P.resourceId);
      // DomainID is optional here (api.spec): without it the record is looked up across the caller's domains.
      const domainId = args.given(P.domainId) ? args.int(P.domainId) : await services.records.domainOf(actor, resourceId);
      const updated = await services.records.update(actor, domainId, resourceId, (current, zone) =>
        adapt(current.type, overlay(args, v3Type(current).v3.toV3(current), false), ctx, zone, current),
      );
      return { ResourceID: updated.id };
    },
  },
  {
    name: 'domain.resource.delete',
    description: 'Delete a domain record.',
    params: [P.domainId, P.resourceId],
    throws: 'NOTFOUND',
    auth: true,
    batchable: true,
    async run({ args, services, actor }) {
      const deleted = await services.records.delete(actor, args.int(P.domainId), args.int(P.resourceId), (current) => void v3Type(current));
      return { ResourceID: deleted.id };
    },
  },
  {
    name: 'domain.resource.list',
    description: 'Lists the records of a domain.',
    params: [P.domainId, param('ResourceID', 'numeric', false, 'Limits the list to the specified ResourceID')],
    throws: '',
    auth: true,
    batchable: true,
    async run({ args, services, actor }) {
      const domainId = args.int(P.domainId);
      if (args.given(P.resourceId)) return [v3Record(await services.records.get(actor, domainId, args.int(P.resourceId)))];
      const known = (await services.records.list(actor, domainId)).filter((r) => recordType(r.type)?.v3);
      return known.sort(byName).map(v3Record);
    },
  },
];
