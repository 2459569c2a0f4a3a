/**
 * Zone transfers out: AXFR (RFC 5936) and IXFR (RFC 1995) to the addresses in a domain's `axfr` list.
 * IXFR is answered from the change journal when every change since the client's serial is a record
 * change (the SOA and default TTL are then the same throughout); otherwise with the whole zone.
 */
import type * as dnsPacket from 'dns-packet';
import { isServed, type StoredDomain } from '../../model/domain.js';
import { memberSees } from '../../model/roles.js';
import type { NamedTsigKey } from '../../model/tsig-key.js';
import { normalizeZoneName } from '../../model/names.js';
import { zoneDiff } from '../../model/zone-diff.js';
import { soaData } from '../../model/records/index.js';
import { serialNewer, withRRsetTtls } from '../../model/zone.js';
import { transferred } from '../../model/steering-transfer.js';
import type { Services } from '../../services/index.js';
import { EDE } from '../wire/edns-options.js';
import { RCODE } from '../wire/message.js';
import type { AliasCache } from '../alias/cache.js';
import { withResolvedAliases } from '../alias/transfer.js';
import { signedRecords } from '../dnssec/online.js';
import type { SignatureCache } from '../dnssec/sign.js';
import { addressIn, response, responses } from './wire.js';

export interface TransferRequest {
  services: Services;
  query: dnsPacket.Packet;
  raw: Buffer;
  remoteAddress: string;
  transport: 'udp' | 'tcp';
  nameservers: string[];
  /** The customer's TSIG key that signed the request (verified), or null. */
  key: NamedTsigKey | null;
  /** The name of the key that signed it (a customer's, or a mirror's key for its masters), or null when unsigned. */
  keyName: string | null;
  /** Signatures of signed zones, shared with answers. */
  signatures: SignatureCache;
  /** ALIAS targets' addresses, which transfers carry in place of the ALIAS records. */
  aliases: AliasCache | null;
}

/**
 * Whether the request may transfer the domain: from an address in its list, signed with a key of its
 * owner's that may (and whose member may now see it), or from the catalog's secondaries (configuration: their addresses or their key), who
 * serve every zone the catalog lists.
 */
async function mayTransfer(domain: StoredDomain, req: TransferRequest): Promise<boolean> {
  const k = req.key;
  if (addressIn(domain.axfrIps, req.remoteAddress) || Boolean(k && k.transfer && k.accountId === domain.accountId && k.domains.includes(domain.id) && memberSees(k.member, domain.id))) return true;
  const fleet = req.services.zones.secondaries();
  return Boolean(fleet && (addressIn(fleet.axfr, req.remoteAddress) || (await req.services.zones.isSecondariesKey(k))));
}

/** Answers an AXFR or IXFR query: one or more complete DNS messages. */
export async function handleTransfer(req: TransferRequest): Promise<Buffer[]> {
  const { services, query } = req;
  const question = query.questions?.[0];
  if (!question || (question.type !== 'AXFR' && question.type !== 'IXFR') || (query.questions?.length ?? 0) !== 1) {
    return [response(query, RCODE.FORMERR)];
  }
  // AXFR is defined over TCP only (RFC 5936 4.2); said before any lookup, as UDP senders may be forged.
  if (question.type === 'AXFR' && req.transport === 'udp') return [response(query, RCODE.FORMERR)];
  const zone = normalizeZoneName(question.name);
  const domain = await services.zones.byName(zone);
  if (!domain || !isServed(domain.status) || !(await mayTransfer(domain, req))) {
    return [response(query, RCODE.REFUSED, { code: EDE.PROHIBITED, text: 'zone transfer not allowed from this address or key' })];
  }

  let clientSerial: number | null = null;
  if (question.type === 'IXFR') {
    const clientSoa = (query.authorities ?? []).find((a) => a.type === 'SOA');
    if (!clientSoa) return [response(query, RCODE.FORMERR)];
    clientSerial = soaData(clientSoa).serial;
  }
  const snapshot = await services.zones.snapshot(domain, req.nameservers, clientSerial);
  if (!snapshot) return [response(query, RCODE.SERVFAIL)];
  // With the TTLs queries get, whatever the stored records (or a mirror's master) gave each record of a set.
  // Steered records as a secondary serves them to everyone (model/steering-transfer.ts), ALIAS records as the addresses they stand for.
  const resolved = await withResolvedAliases({ soa: snapshot.content.soa, answers: [...transferred(snapshot.content.answers)] }, req.aliases);
  const content = { soa: resolved.soa, answers: withRRsetTtls(resolved.answers) };
  const current = soaData(content.soa).serial;

  if (clientSerial !== null) {
    // Up to date (or ahead): the current SOA alone says so. Over UDP the same single SOA asks the
    // client to come back over TCP when there is more to send (RFC 1995 section 2).
    if (!serialNewer(current, clientSerial) || req.transport === 'udp') {
      return responses(query, RCODE.NOERROR, [content.soa]);
    }
    // A signed zone's signatures and NSEC3 chain are not in the journal: its IXFR is the whole zone.
    const { journal } = snapshot;
    const diffs = journal && !snapshot.signing ? zoneDiff(snapshot.domain, journal.records, journal.changes, clientSerial, req.nameservers, content.answers.length, journal.down) : null;
    if (diffs) return responses(query, RCODE.NOERROR, [content.soa, ...diffs, content.soa]);
  }
  const answers = snapshot.signing ? await signedRecords(content, snapshot.signing, req.signatures, Math.floor(services.now() / 1000)) : content.answers;
  return responses(query, RCODE.NOERROR, [content.soa, ...answers, content.soa]);
}
