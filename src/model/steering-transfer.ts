/**
 * What AXFR and IXFR carry of a zone with steering (issue 32; docs/dns.md "Steering"): a secondary serves one
 * answer to everyone, so it gets what a client no subnet matches would be served — records with subnets left
 * out, records whose health check is down left out (all of them kept when all are down, as answers fail
 * open) — with every weighted record; but where several CNAME (or ALIAS) records stand at one name, only one
 * (the largest weight, then the lowest id), since a secondary refuses more.
 */
import { keyOf } from './labels.js';
import { STEERABLE_ALIASES } from './steered-aliases.js';
import type { ZoneRecord } from './zone.js';

/** The weight a record without one counts with beside weighted ones (dns/zone/steer.ts does the same). */
export const DEFAULT_WEIGHT = 1;

/** The zone's records as a transfer carries them; the records (and their order) unchanged when nothing is steered. */
export function transferred(answers: readonly ZoneRecord[]): readonly ZoneRecord[] {
  if (!answers.some((a) => a.steered)) return answers;
  const sets = new Map<string, ZoneRecord[]>();
  for (const a of answers) {
    const key = `${keyOf(a.name)} ${a.type}`;
    const set = sets.get(key);
    if (set) set.push(a);
    else sets.set(key, [a]);
  }
  const kept = new Set<ZoneRecord>();
  for (const set of sets.values()) for (const a of set.some((r) => r.steered) ? transferredSet(set) : set) kept.add(a);
  return answers.filter((a) => kept.has(a));
}

/** One RRset's records, in id order, as transferred. */
function transferredSet(set: readonly ZoneRecord[]): readonly ZoneRecord[] {
  const up = set.filter((r) => !r.steered?.down);
  const everyone = (up.length > 0 ? up : set).filter((r) => !r.steered?.subnets);
  if (everyone.length <= 1 || !STEERABLE_ALIASES.has(everyone[0]?.type as string)) return everyone;
  let best = everyone[0] as ZoneRecord;
  for (const r of everyone) if (weightOf(r) > weightOf(best)) best = r;
  return [best];
}

const weightOf = (r: ZoneRecord): number => r.steered?.weight ?? DEFAULT_WEIGHT;
