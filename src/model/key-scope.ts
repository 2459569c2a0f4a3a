/**
 * API key scopes: what a key may see and do within its account. Every field is optional and an absent one
 * does not restrict; the services ask these functions (never the doors), so both HTTP interfaces and the
 * panel obey one check. TSIG keys have their own scope (tsig-key.ts); both use name-scope.ts for names.
 */
import { BlockList } from 'node:net';
import { Problems, ScopeError } from './errors.js';
import { checkScopeNames, checkScopeTypes, MAX_SCOPE_ITEMS, nameCovered, patternWithin } from './name-scope.js';
import { cidrOf, type Cidr } from './names.js';

export interface KeyScope {
  /** Ids of the only domains (and mirrors) the key sees. */
  domains?: number[];
  /** No writes at all. */
  read_only?: boolean;
  /** Record writes only at these names (name-scope.ts patterns) and of these types; no other writes. */
  records?: { names?: string[]; types?: string[] };
  /** The key authenticates only from these networks (CIDR). */
  subnets?: string[];
}

export const MAX_SCOPE_DOMAINS = 1000;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const stringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');

/**
 * The scope `raw` describes, normalised (names lower case, types upper case, duplicates dropped), or every
 * problem found, under `scope.<field>`. Whether the domains are the account's is the service's to check.
 */
export function checkKeyScope(raw: unknown): { scope: KeyScope; problems: Problems } {
  const p = new Problems();
  const scope: KeyScope = {};
  if (!isObject(raw)) {
    p.add('scope', 'The scope must be an object with any of domains, read_only, records and subnets.');
    return { scope, problems: p };
  }
  for (const k of Object.keys(raw)) if (!['domains', 'read_only', 'records', 'subnets'].includes(k)) p.add(`scope.${k}`, `The scope has no field '${k}'; its fields are domains, read_only, records and subnets.`);
  if (raw.domains !== undefined) {
    const d = raw.domains;
    if (!Array.isArray(d) || !d.every((i) => Number.isSafeInteger(i) && (i as number) > 0)) p.add('scope.domains', 'The domains must be a list of domain ids.');
    else if (d.length === 0) p.add('scope.domains', 'List at least one domain, or leave domains out to allow every domain.');
    else if (d.length > MAX_SCOPE_DOMAINS) p.add('scope.domains', `A scope may list at most ${MAX_SCOPE_DOMAINS} domains.`);
    else scope.domains = [...new Set(d as number[])].sort((a, b) => a - b);
  }
  if (raw.read_only !== undefined) {
    if (typeof raw.read_only !== 'boolean') p.add('scope.read_only', 'read_only must be true or false.');
    else scope.read_only = raw.read_only;
  }
  if (raw.records !== undefined) {
    const r = raw.records;
    if (!isObject(r)) p.add('scope.records', 'records must be an object with names and/or types.');
    else {
      scope.records = {};
      for (const k of Object.keys(r)) if (k !== 'names' && k !== 'types') p.add(`scope.records.${k}`, `records has no field '${k}'; its fields are names and types.`);
      for (const field of ['names', 'types'] as const) {
        const list = r[field];
        if (list === undefined) continue;
        if (!stringList(list)) p.add(`scope.records.${field}`, `records.${field} must be a list of strings.`);
        else if (list.length > MAX_SCOPE_ITEMS) p.add(`scope.records.${field}`, `records.${field} may list at most ${MAX_SCOPE_ITEMS} entries.`);
        else {
          const checked = field === 'names' ? checkScopeNames(p, 'scope.records.names', list) : checkScopeTypes(p, 'scope.records.types', list);
          scope.records[field] = [...new Set(checked)];
        }
      }
    }
  }
  if (raw.subnets !== undefined) {
    const s = raw.subnets;
    if (!stringList(s)) p.add('scope.subnets', 'The subnets must be a list of networks such as 192.0.2.0/24.');
    else if (s.length === 0) p.add('scope.subnets', 'List at least one network, or leave subnets out to allow every address.');
    else if (s.length > MAX_SCOPE_ITEMS) p.add('scope.subnets', `A scope may list at most ${MAX_SCOPE_ITEMS} networks.`);
    else {
      for (const net of s) if (!cidrOf(net)) p.add('scope.subnets', `'${net}' is not an IP address or network (for example 192.0.2.0/24 or 2001:db8::/32).`);
      scope.subnets = [...new Set(s.map((n) => n.trim()))];
    }
  }
  return { scope, problems: p };
}

const networks = (scope: KeyScope): Cidr[] => (scope.subnets ?? []).map((s) => cidrOf(s)).filter((c): c is Cidr => c !== null);

function blockListOf(nets: readonly Cidr[]): BlockList {
  const list = new BlockList();
  for (const n of nets) list.addSubnet(n.address, n.prefix, n.family);
  return list;
}

/** Whether a key of this scope may authenticate from `address` (IPv4-mapped IPv6 addresses match IPv4 networks). */
export function allowsAddress(scope: KeyScope, address: string): boolean {
  if (scope.subnets === undefined) return true;
  const family = address.includes(':') ? 'ipv6' : 'ipv4';
  try {
    return blockListOf(networks(scope)).check(address, family);
  } catch {
    return false; // not an address at all
  }
}

/** Whether the key sees the domain (lists leave out, and reads and writes find nothing of, the others). */
export const seesDomain = (scope: KeyScope, domainId: number): boolean => scope.domains === undefined || scope.domains.includes(domainId);

/** Refuses every write to a read-only key. */
export function checkWrite(scope: KeyScope): void {
  if (scope.read_only) throw new ScopeError('read_only', 'This API key is read-only (scope.read_only); it cannot change anything.');
}

/**
 * Refuses writes other than records (domain settings, DNSSEC, TSIG keys, mirrors, API keys) to a key
 * limited to records; `what` names the object in the message.
 */
export function checkManage(scope: KeyScope, what: string): void {
  checkWrite(scope);
  if (scope.records) throw new ScopeError('records', `This API key may only write records (scope.records); it cannot change ${what}.`);
}

/**
 * Refuses what only a key with the account's whole powers may do: a user's password, second factors and
 * passkeys, the account's settings. A key narrowed to some domains could otherwise widen itself (a passkey it
 * registers signs in to a session without a scope); a key narrowed only to networks may.
 */
export function checkAccountWide(scope: KeyScope, what: string): void {
  checkManage(scope, what);
  if (scope.domains) throw new ScopeError('domains', `This API key is limited to some domains (scope.domains); it cannot change ${what}.`);
}

/** Refuses creating domains and mirrors to a key limited to some domains (or one that may not manage). */
export function checkCreateDomain(scope: KeyScope): void {
  checkManage(scope, 'domains');
  if (scope.domains) throw new ScopeError('domains', 'This API key is limited to some domains (scope.domains); it cannot create domains.');
}

/** Refuses writing a record of `type` at `name` (relative to the domain, "" the apex) outside the scope. */
export function checkRecordWrite(scope: KeyScope, name: string, type: string): void {
  checkWrite(scope);
  const r = scope.records;
  if (!r) return;
  if (r.names && !r.names.some((p) => nameCovered(p, name))) {
    throw new ScopeError('records.names', `This API key may not write records at '${name || '@'}' (scope.records.names allows ${r.names.join(', ')}).`);
  }
  if (r.types && !r.types.includes(type)) {
    throw new ScopeError('records.types', `This API key may not write ${type} records (scope.records.types allows ${r.types.join(', ')}).`);
  }
}

function subnetWithin(inner: Cidr, outer: readonly Cidr[]): boolean {
  return outer.some((o) => {
    if (o.family !== inner.family || inner.prefix < o.prefix) return false;
    // Any address of inner lies in the same outer network when inner is at least as long a prefix.
    return blockListOf([o]).check(inner.address, inner.family);
  });
}

/**
 * The first field in which `inner` allows more than `outer` (a key made with a key gets at most its maker's
 * scope), or null when it allows nothing more.
 */
export function widens(inner: KeyScope, outer: KeyScope): string | null {
  if (outer.domains && !(inner.domains && inner.domains.every((d) => outer.domains?.includes(d)))) return 'domains';
  if (outer.read_only && !inner.read_only) return 'read_only';
  if (outer.records) {
    const o = outer.records;
    const i = inner.records;
    if (!i) return 'records';
    if (o.names && !(i.names && i.names.every((n) => o.names?.some((q) => patternWithin(n, q))))) return 'records.names';
    if (o.types && !(i.types && i.types.every((t) => o.types?.includes(t)))) return 'records.types';
  }
  if (outer.subnets) {
    const o = networks(outer);
    if (!(inner.subnets && networks(inner).every((n) => subnetWithin(n, o)))) return 'subnets';
  }
  return null;
}

/**
 * What both scopes allow: a key used by a member does no more than the member may (model/roles.ts
 * memberScope) nor than the key itself. Domains meet (an empty list sees nothing), read-only wins; record
 * and subnet limits are taken from whichever side has them, and from both each entry the other covers.
 */
export function intersectScopes(a: KeyScope, b: KeyScope): KeyScope {
  const out: KeyScope = {};
  if (a.domains || b.domains) out.domains = a.domains && b.domains ? a.domains.filter((d) => b.domains?.includes(d)) : (a.domains ?? b.domains);
  if (a.read_only || b.read_only) out.read_only = true;
  const records = a.records && b.records ? bothRecords(a.records, b.records) : (a.records ?? b.records);
  if (records) out.records = records;
  if (a.subnets || b.subnets) {
    const [na, nb] = [networks(a), networks(b)];
    out.subnets =
      a.subnets && b.subnets
        ? [...a.subnets.filter((_, i) => subnetWithin(na[i] as Cidr, nb)), ...b.subnets.filter((_, i) => subnetWithin(nb[i] as Cidr, na))]
        : ((a.subnets ?? b.subnets) as string[]);
  }
  return out;
}

function bothRecords(a: NonNullable<KeyScope['records']>, b: NonNullable<KeyScope['records']>): NonNullable<KeyScope['records']> {
  const out: NonNullable<KeyScope['records']> = {};
  if (a.names || b.names) {
    out.names =
      a.names && b.names
        ? [...new Set([...a.names.filter((n) => b.names?.some((q) => patternWithin(n, q))), ...b.names.filter((n) => a.names?.some((q) => patternWithin(n, q)))])]
        : (a.names ?? b.names);
  }
  if (a.types || b.types) out.types = a.types && b.types ? a.types.filter((t) => b.types?.includes(t)) : (a.types ?? b.types);
  return out;
}

/** The scope of a caller without a key (the command line, the server itself) or of a key without limits. */
export const UNRESTRICTED: KeyScope = Object.freeze({});
