/** Rules and schema pieces that several record types share. */
import { Type } from '@sinclair/typebox';
import type { Problems } from '../errors.js';
import { absoluteName, hostnameProblem, MAX_NAME_LENGTH, normalizeTarget } from '../names.js';
import { MAX_TTL, roundTtl, ttlProblem } from '../ttl.js';
import { V3_DEFAULTS, type RecordData } from './types.js';

/** A record with interface A's defaults in every column, to be overlaid with the type's own values. */
export function blankRecord(type: string): RecordData {
  return { type, ...V3_DEFAULTS };
}

/** Owner name (relative, "" = apex): a host name that may hold `_` labels and a leading `*`. */
export function validateOwner(rec: RecordData, zone: string, p: Problems): void {
  if (rec.name === '') return;
  const problem = hostnameProblem(absoluteName(rec.name, zone), { underscore: true, wildcard: true });
  if (problem) p.add('name', `The name '${rec.name}' ${problem}.`);
}

export function validateTtl(rec: RecordData, p: Problems): void {
  const problem = ttlProblem(rec.ttl);
  if (problem) p.add('ttl', `The TTL ${problem}.`);
  else rec.ttl = roundTtl(rec.ttl);
}

/**
 * A host name in record data (CNAME/MX/NS/SRV target), stored without the trailing dot. Underscores are
 * allowed (a CNAME to `_acme-challenge.other.example` delegates ACME validation); a `*` label is not.
 */
export function validateHostTarget(rec: RecordData, what: string, p: Problems): void {
  rec.target = normalizeTarget(rec.target);
  if (rec.target === '') {
    p.add('target', `A ${rec.type} record needs ${what}.`);
    return;
  }
  const problem = hostnameProblem(rec.target, { underscore: true });
  if (problem) p.add('target', `The ${what} '${rec.target}' ${problem}.`);
}

export function validateUint16(rec: RecordData, field: 'priority' | 'weight' | 'port', p: Problems): void {
  const v = rec[field];
  if (!Number.isInteger(v) || v < 0 || v > 65535) p.add(field, `The ${field} must be a whole number between 0 and 65535.`);
}

/** A relative owner name as interface B shows and takes it. */
export const nameField = Type.String({
  maxLength: MAX_NAME_LENGTH,
  description: 'Owner name relative to the domain; "" (or "@") is the domain itself. A fully qualified name inside the domain is accepted and stored relative.',
  default: '',
});
export const ttlField = Type.Integer({
  minimum: 0,
  maximum: MAX_TTL,
  description: 'Seconds; 0 uses the domain default. Other values are rounded up to 300, 3600, 7200, 14400, 28800, 57600, 86400, 172800, 345600, 604800, 1209600 or 2419200.',
  default: 0,
});
export const hostField = (description: string) => Type.String({ minLength: 1, maxLength: MAX_NAME_LENGTH + 1, description });
export const uint16Field = (description: string, dflt?: number) =>
  Type.Integer({ minimum: 0, maximum: 65535, description, ...(dflt === undefined ? {} : { default: dflt }) });

/** Reads the common v1 fields (name, ttl) into a record. */
export function commonFromV1(type: string, body: Record<string, unknown>): RecordData {
  const rec = blankRecord(type);
  if (typeof body.name === 'string') rec.name = body.name;
  if (typeof body.ttl === 'number') rec.ttl = body.ttl;
  return rec;
}

