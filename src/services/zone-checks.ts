/**
 * The zone rules of model/zone-rules.ts that look past the record being written, checked against the
 * stored zone inside a write (domains and records both run them, so they live apart from either).
 */
import { recordType, type RecordData } from '../model/records/index.js';
import { hasAddress, inZoneNameServers, missingAtName, nameServerWithoutAddress } from '../model/zone-rules.js';
import type { RecordStore } from '../store/records.js';

/** The write might leave an apex name server of the zone without an address (see below). */
export const touchesNameServers = (rec: RecordData): boolean => {
  const t = recordType(rec.type);
  return Boolean(t?.address || (t?.nameServer && rec.name === ''));
};

/**
 * Every host inside the zone that its apex NS records name has an A or AAAA record at that exact name.
 * Runs inside the write after its change, so a refused change is never applied (the transaction rolls
 * back). `zone` is the zone's name after the write (a renamed domain moves hosts in or out of it).
 */
export async function checkNameServerAddresses(tx: Pick<RecordStore, 'recordsAt'>, domainId: number, zone: string, field: string | null): Promise<void> {
  for (const { name, host } of inZoneNameServers(await tx.recordsAt(domainId, ''), zone)) {
    if (!hasAddress(await tx.recordsAt(domainId, name))) throw nameServerWithoutAddress(host, zone, field);
  }
}

/** After a write at `name`: the types there that need another type still have it (DS: NS). */
export async function checkRequirements(tx: Pick<RecordStore, 'recordsAt'>, domainId: number, name: string, zone: string): Promise<void> {
  const missing = missingAtName(await tx.recordsAt(domainId, name), zone);
  if (missing) throw missing;
}
