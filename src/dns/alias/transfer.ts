/**
 * A zone as transfers carry it: each ALIAS replaced by its target's A and AAAA records, owned by the ALIAS's
 * name at the smaller of the two TTLs, so a secondary that knows no ALIAS answers as we do. A target not
 * resolved yet is waited for (its first resolution); one without addresses leaves nothing at its name.
 */
import { ADDRESS_TYPES, recordType } from '../../model/records/index.js';
import type { ZoneContent, ZoneRecord } from '../../model/zone.js';
import type { AliasCache } from './cache.js';

const isAlias = (a: ZoneRecord): boolean => recordType(a.type)?.addressAlias === true;

export async function withResolvedAliases(content: ZoneContent, aliases: AliasCache | null): Promise<ZoneContent> {
  if (!content.answers.some(isAlias)) return content;
  const answers: ZoneRecord[] = [];
  for (const a of content.answers) {
    if (!isAlias(a)) {
      answers.push(a);
      continue;
    }
    for (const t of ADDRESS_TYPES) {
      const got = aliases ? await aliases.records(String(a.data.target), t) : null;
      for (const data of got?.records ?? []) answers.push({ name: a.name, type: t.type, ttl: Math.min(a.ttl, got?.ttl ?? a.ttl), data });
    }
  }
  return { soa: content.soa, answers };
}
