/**
 * A zone as RFC 1035 master-file text: every name absolute, one record per line, SOA first, one TTL per
 * RRset. Each record goes through the server's own encoder (toWireRecord) before it is written, so the
 * file holds what the server answers with and AXFR sends; a record the server could not serve makes the
 * export throw instead of writing something else. The rdata text is its registry module's (`present`).
 */
import { recordTypeOrThrow } from '../model/records/index.js';
import { presentName } from '../model/records/presentation.js';
import { withRRsetTtls, type ZoneContent, type ZoneRecord } from '../model/zone.js';
import { toWireRecord } from './writer.js';

function line(a: ZoneRecord): string {
  const wire = toWireRecord(a);
  return `${presentName(a.name)}\t${wire.ttl}\tIN\t${a.type}\t${recordTypeOrThrow(a.type).present(a.data)}`;
}

/** The zone's master-file text. Throws (naming the record) when a record cannot be encoded. */
export function zoneFile(content: ZoneContent): string {
  const lines: string[] = [];
  for (const a of [content.soa, ...withRRsetTtls(content.answers.filter((x) => x.type !== 'SOA'))]) {
    try {
      lines.push(line(a));
    } catch (e) {
      throw new Error(`${a.name} ${a.type}: ${(e as Error).message}`);
    }
  }
  return lines.join('\n') + '\n';
}
