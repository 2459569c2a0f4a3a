/** domain.create, domain.update, domain.delete, domain.list. */
import type { DomainData, DomainKind, DomainStatus, StoredDomain } from '../../../model/domain.js';
import { parseAddressList } from '../../../model/names.js';
import { shownList } from '../../shown-lists.js';
import type { Args, ParamSpec } from '../args.js';
import { param, type Action } from './types.js';

const P = {
  domainId: param('DomainID', 'numeric', true),
  domain: param('Domain', 'string', true, "The zone's name"),
  type: param('Type', 'string', true, 'master or slave'),
  soaEmail: param('SOA_Email', 'string', false, 'Required when type=master', ''),
  description: param('Description', 'string', false, 'Currently undisplayed.', ''),
  refresh: param('Refresh_sec', 'numeric', false, '', 0),
  retry: param('Retry_sec', 'numeric', false, '', 0),
  expire: param('Expire_sec', 'numeric', false, '', 0),
  ttl: param('TTL_sec', 'numeric', false, '', 0),
  status: param('status', 'numeric', false, '0, 1, or 2 (disabled, active, edit mode)', 1),
  masterIps: param('master_ips', 'string', false, "When type=slave, the zone's master DNS servers list, semicolon separated ", ''),
  axfrIps: param('axfr_ips', 'string', false, 'IP addresses allowed to AXFR the entire zone, semicolon separated', ''),
  group: param('lpm_displayGroup', 'string', false, 'Display group in the Domain list inside the Linode DNS Manager', ''),
};

const optional = (p: ParamSpec): ParamSpec => ({ ...p, required: false, default: undefined as never });
const forUpdate = (p: ParamSpec): ParamSpec => {
  const { default: _d, ...rest } = optional(p);
  return rest;
};

const DOMAIN_FIELDS = [P.soaEmail, P.description, P.refresh, P.retry, P.expire, P.ttl, P.status, P.masterIps, P.axfrIps, P.group];

/** An address list argument (";" or "," separated, "none" = empty); bad entries are kept for checkDomain to report. */
function addresses(args: Args, spec: ParamSpec): string[] {
  const { addresses: list, invalid } = parseAddressList(args.str(spec));
  return [...list, ...invalid];
}

/** The domain fields given in the request (all of them for create, with the defaults). */
function domainFields(args: Args, all: boolean): Partial<DomainData> {
  const out: Partial<DomainData> = {};
  const want = (p: ParamSpec) => all || args.given(p);
  if (want(P.domain)) out.domain = args.str(all ? P.domain : optional(P.domain));
  if (want(P.type)) out.kind = args.str(all ? P.type : optional(P.type)).trim().toLowerCase() as DomainKind;
  if (want(P.soaEmail)) out.soaEmail = args.str(P.soaEmail);
  if (want(P.description)) out.description = args.str(P.description);
  if (want(P.refresh)) out.refresh = args.int(P.refresh);
  if (want(P.retry)) out.retry = args.int(P.retry);
  if (want(P.expire)) out.expire = args.int(P.expire);
  if (want(P.ttl)) out.ttl = args.int(P.ttl);
  if (want(P.status)) out.status = args.int(P.status) as DomainStatus;
  if (want(P.masterIps)) out.masterIps = addresses(args, P.masterIps);
  if (want(P.axfrIps)) out.axfrIps = addresses(args, P.axfrIps);
  if (want(P.group)) out.displayGroup = args.str(P.group);
  return out;
}

/** Address lists as the real API shows them: ";"-terminated. */
const ipList = (ips: string[]) => ips.map((ip) => `${ip};`).join('');

/** Domains as domain.list shows them: by name; made once for a list handed out again (shownList). */
const v3List = (list: readonly StoredDomain[]) => shownList(list, byName);
const byName = (list: readonly StoredDomain[]) => list.toSorted((a, b) => (a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0)).map(v3Domain);

/** A domain as domain.list shows it: the 13 upper-case keys in the order of the real 2015 bodies. */
export function v3Domain(d: StoredDomain) {
  return {
    DOMAINID: d.id,
    DESCRIPTION: d.description,
    EXPIRE_SEC: d.expire,
    RETRY_SEC: d.retry,
    STATUS: d.status,
    LPM_DISPLAYGROUP: d.displayGroup,
    MASTER_IPS: ipList(d.masterIps),
    REFRESH_SEC: d.refresh,
    SOA_EMAIL: d.soaEmail,
    TTL_SEC: d.ttl,
    DOMAIN: d.domain,
    TYPE: d.kind,
    AXFR_IPS: d.axfrIps.length === 0 ? 'none' : ipList(d.axfrIps),
  };
}

export const domainActions: Action[] = [
  {
    name: 'domain.create',
    description: 'Create a domain record.',
    params: [P.domain, P.type, ...DOMAIN_FIELDS],
    throws: 'NOACCESS,VALIDATION',
    auth: true,
    batchable: true,
    async run({ args, services, actor }) {
      const fields = domainFields(args, true);
      const d = await services.domains.create(actor, { ...fields, domain: fields.domain ?? '', kind: fields.kind ?? 'master' });
      return { DomainID: d.id };
    },
  },
  {
    name: 'domain.update',
    description: 'Update a domain record.',
    params: [P.domainId, ...[P.domain, P.type, ...DOMAIN_FIELDS].map(forUpdate)],
    throws: 'NOTFOUND,VALIDATION',
    auth: true,
    batchable: true,
    async run({ args, services, actor }) {
      const id = args.int(P.domainId);
      const d = await services.domains.update(actor, id, domainFields(args, false));
      return { DomainID: d.id };
    },
  },
  {
    name: 'domain.delete',
    description: 'Delete a domain and all of its records.',
    params: [P.domainId],
    throws: 'NOTFOUND',
    auth: true,
    batchable: true,
    async run({ args, services, actor }) {
      const d = await services.domains.delete(actor, args.int(P.domainId));
      return { DomainID: d.id };
    },
  },
  {
    name: 'domain.list',
    description: 'Lists domains you have access to.',
    params: [param('DomainID', 'numeric', false, 'Limits the list to the specified DomainID')],
    throws: '',
    auth: true,
    batchable: true,
    async run({ args, services, actor }) {
      if (args.given(P.domainId)) return [v3Domain(await services.domains.get(actor, args.int(P.domainId)))];
      return v3List(await services.domains.list(actor));
    },
    // The whole list: the key is read with it.
    withKey: (args) =>
      args.given(P.domainId) ? undefined : async (key, { services, remoteAddr }) => v3List((await services.accounts.authenticateListing(key, 'v3', remoteAddr, {})).domains),
  },
];
