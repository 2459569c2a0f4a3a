/**
 * Owner-name and type lists that limit what a credential may write: the update scope of a TSIG key
 * (tsig-key.ts) and the records scope of an API key (key-scope.ts) share one syntax and one matcher.
 * Names are relative to the domain: `@` the apex, `*.x` the name `*.x` and everything below `x`, `*`
 * every name but the apex, anything else itself.
 */
import type { Problems } from './errors.js';
import { keyOf } from './labels.js';
import { hostnameProblem } from './names.js';
import { recordType } from './records/index.js';

/** The most names or types one scope may list. */
export const MAX_SCOPE_ITEMS = 100;

/** Whether the pattern covers `name` (relative to the domain, "" the apex). Letter case aside. */
export function nameCovered(pattern: string, name: string): boolean {
  const n = keyOf(name);
  if (pattern === '@') return n === '';
  if (pattern === '*') return n !== '';
  if (pattern.startsWith('*.')) {
    const base = pattern.slice(2);
    return n === pattern || n.endsWith('.' + base);
  }
  return n === pattern;
}

/** Whether every name `inner` covers is covered by `outer` (both patterns). */
export const patternWithin = (inner: string, outer: string): boolean => nameCovered(outer, inner === '@' ? '' : inner);

/**
 * Checks and normalises a list of name patterns (trimmed, one trailing dot dropped, lower case); problems
 * are filed under `field`. Returns the normalised list.
 */
export function checkScopeNames(p: Problems, field: string, names: readonly string[]): string[] {
  if (names.length === 0) p.add(field, 'List at least one name, or leave names out to allow every name.');
  const out = names.map((n) => n.trim().replace(/\.$/, '').toLowerCase());
  for (const n of out) {
    const problem = n === '@' ? null : hostnameProblem(n, { underscore: true, wildcard: true });
    if (problem) p.add(field, `The name '${n}' ${problem}; names are relative to the domain (@ is its apex).`);
  }
  return out;
}

/** Checks and normalises (upper case) a list of record types the service hosts; problems under `field`. */
export function checkScopeTypes(p: Problems, field: string, types: readonly string[]): string[] {
  if (types.length === 0) p.add(field, 'List at least one type, or leave types out to allow every type.');
  const out = types.map((t) => t.trim().toUpperCase());
  for (const t of out) {
    const rt = recordType(t);
    if (!rt || rt.hosted === false) p.add(field, `The record type '${t}' is not one the service hosts.`);
  }
  return out;
}
