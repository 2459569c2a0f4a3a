/** Domains and zone mirrors as interface B shows them, and the core's fields a v1 body sets. */
import type { Static } from '@sinclair/typebox';
import { statusFromName, statusName, type DomainData, type StatusName, type StoredDomain } from '../../../model/domain.js';
import type { TransferState } from '../../../services/mirrors.js';
import type { FieldMap } from '../problem.js';
import { isoTime } from '../support.js';
import type { Domain, DomainPatch, Mirror, MirrorPatch } from './schemas.js';

export type DomainBody = Static<typeof DomainPatch> & Static<typeof MirrorPatch>;

/** Interface B's field names for the core's domain fields (for error entries). */
const FIELD_NAMES: Record<string, string> = { soaEmail: 'soa', ttl: 'default_ttl', axfrIps: 'axfr', masterIps: 'masters', masterTsig: 'tsig', masterTls: 'tls', masterTlsAuth: 'tls_verify' };
/** The first part of a dotted path is renamed (masterTsig.secret is tsig.secret). */
export const domainFieldMap: FieldMap = (f) => f.replace(/^[^.]+/, (head) => FIELD_NAMES[head] ?? head);

export function v1Domain(d: StoredDomain): Static<typeof Domain> {
  return { id: d.id, domain: d.domain, soa: d.soaEmail, default_ttl: d.ttl, status: statusName(d.status), axfr: d.axfrIps };
}

export function v1Mirror(d: StoredDomain, t: TransferState): Static<typeof Mirror> {
  return {
    id: d.id,
    domain: d.domain,
    masters: d.masterIps,
    status: statusName(d.status),
    axfr: d.axfrIps,
    // The secret is write-only.
    tsig: d.masterTsig && { name: `${d.masterTsig.name}.`, algorithm: d.masterTsig.algorithm },
    tls: d.masterTls,
    tls_verify: d.masterTlsAuth,
    transfer: { serial: t.serial, last_success: isoTime(t.lastSuccess), last_attempt: isoTime(t.lastAttempt), last_error: t.lastError },
  };
}

/**
 * The core fields set by a v1 body. `reset` (create, PUT) gives omitted optional fields their defaults.
 * A status name equal to the current one keeps the current status (edit mode stays edit mode).
 */
export function domainInput(body: DomainBody, reset: boolean, current?: StoredDomain): Partial<DomainData> {
  const out: Partial<DomainData> = {};
  if (body.domain !== undefined) out.domain = body.domain;
  if (body.soa !== undefined) out.soaEmail = body.soa;
  if (body.masters !== undefined) out.masterIps = body.masters;
  if (body.default_ttl !== undefined || reset) out.ttl = body.default_ttl ?? 0;
  if (body.axfr !== undefined || reset) out.axfrIps = body.axfr === undefined || body.axfr === '' ? [] : body.axfr;
  if (body.tsig !== undefined || reset) out.masterTsig = body.tsig ?? null;
  if (body.tls !== undefined || reset) out.masterTls = body.tls ?? false;
  if (body.tls_verify !== undefined || reset) out.masterTlsAuth = body.tls_verify ? { name: body.tls_verify.name, ca: body.tls_verify.ca ?? null } : null;
  const status: StatusName | undefined = body.status ?? (reset ? 'active' : undefined);
  if (status !== undefined) out.status = current && statusName(current.status) === status ? current.status : statusFromName(status);
  return out;
}
