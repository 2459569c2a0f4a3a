/**
 * The one zone rule steering changes (issue 32): with steering, several CNAME (or ALIAS) records may stand at
 * one name, since every answer holds exactly one of them (dns/zone/steer.ts) and a transfer carries one
 * (model/steering-transfer.ts). Without steering a CNAME stays alone at its name (zone-rules.ts).
 */
import type { RecordData } from './records/index.js';

/** The alias types, by name: ALIAS may not be in the registry yet, and a name costs nothing when it is not. */
export const STEERABLE_ALIASES: ReadonlySet<string> = new Set(['CNAME', 'ALIAS']);

/** Whether the records at one name are all aliases of one type, each with steering: allowed side by side. */
export function steeredAliases(records: readonly RecordData[]): boolean {
  const type = records[0]?.type;
  return type !== undefined && STEERABLE_ALIASES.has(type) && records.every((r) => r.type === type && !!r.steering);
}
