/**
 * Names as the PowerDNS API writes them: absolute with the trailing dot ("canonical"), and zone ids, which are
 * the zone's name with every octet other than a letter, digit, `.` or `-` written `=XX` (PowerDNS's
 * apiZoneNameToId), the root zone `=2E`.
 */
import { normalizeZoneName, relativeName, zoneNameProblem } from '../../model/names.js';
import { unprocessable } from './errors.js';

/** A name of ours (absolute, no trailing dot, "" the root) as PowerDNS writes it. */
export const canonical = (name: string): string => `${name}.`;

/** The zone id of a zone name of ours. */
export function zoneIdOf(zone: string): string {
  if (zone === '') return '=2E';
  return canonical(zone.replace(/[^A-Za-z0-9.-]/g, (c) => `=${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`));
}

/**
 * The zone name (ours: lower case, no trailing dot) a zone id in a path stands for: `=XX` decoded, the trailing
 * dot optional, as PowerDNS reads it; null for an id no zone of ours can have (one that is not a zone name at
 * all is never looked up).
 */
export function zoneNameOfId(id: string): string | null {
  const decoded = id.replace(/=([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  const name = normalizeZoneName(decoded);
  return zoneNameProblem(name) === null ? name : null;
}

/**
 * A name from a request body, which PowerDNS requires absolute ("DNS Name 'x' is not canonical"): ours without
 * the dot, or a 422.
 */
export function absoluteOf(name: string): string {
  if (!name.endsWith('.')) throw unprocessable(`DNS Name '${name}' is not canonical`);
  return name.slice(0, -1);
}

/**
 * An RRset's owner name relative to its zone ("" the apex), or a 422 as PowerDNS words it. A relative name
 * ending in the zone's name (`www.example.com.example.com.`) is refused: the services read such a relative name
 * as absolute, so it would land elsewhere.
 */
export function ownerIn(name: string, type: string, zone: string): string {
  const rel = relativeName(`${absoluteOf(name)}.`, zone);
  if (rel === null) throw unprocessable(`RRset ${name} IN ${type}: Name is out of zone`);
  const lower = rel.toLowerCase();
  if (lower === zone || lower.endsWith(`.${zone}`)) throw unprocessable(`RRset ${name} IN ${type}: zonehost does not hold a name that repeats its zone's name`);
  return rel;
}
