/**
 * ALIAS targets' addresses as part of a zone's version: the DNS side resolves them (dns/alias/), and when
 * what a zone's ALIAS records stand for changes, the zone takes a new serial here, journaled like any
 * change, so its secondaries hear NOTIFY and transfer the new addresses. The DNS side says how often.
 */
import { isServed } from '../model/domain.js';
import { ALIASES_RESOLVED } from '../model/journal.js';
import { ownerActor, type Actor } from './actor.js';
import type { ZoneWriter } from './zone-writer.js';

/** The server itself, in the zone owner's audit trail. */
const resolverActor = (accountId: number): Actor => ownerActor(accountId, '', 'system', 'ALIAS resolution');

export class AliasService {
  constructor(private readonly writer: ZoneWriter) {}

  /**
   * The addresses of an ALIAS target of the zone `domainId` changed: a new serial (nothing when the zone is
   * gone, not served or not a master zone).
   */
  async resolved(domainId: number): Promise<void> {
    await this.writer.write(null, async (tx) => {
      const domain = await tx.domainById(domainId);
      if (!domain || domain.kind !== 'master' || !isServed(domain.status)) return { value: undefined, change: null, journal: [] };
      return {
        value: undefined,
        change: { kind: 'records.changed', domainId, domain: domain.domain },
        // No record changed: the apex's SOA alone moves (zone-diff and the DNS server's patch read it so);
        journal: [{ action: ALIASES_RESOLVED, objectId: null, before: null, after: null, actor: resolverActor(domain.accountId) }],
      };
    });
  }
}
