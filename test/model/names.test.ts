/** Host names' rules and owner names made relative: the one-test path for valid names gives what the rules one by one give. */
import { describe, expect, it } from 'vitest';
import { hostnameProblem, relativeName } from '../../src/model/names.js';

const label = (n: number) => 'a'.repeat(n);

describe('hostnameProblem', () => {
  it('takes valid names and names what is wrong with the others', () => {
    for (const ok of ['a', 'www', 'a-b.example.com', 'xn--bcher-kva.example', '0.example', label(63), `${label(63)}.${label(63)}.${label(63)}.${label(61)}`]) expect(hostnameProblem(ok), ok).toBeNull();
    expect(hostnameProblem('')).toBe('must not be empty');
    expect(hostnameProblem(`${label(63)}.${label(63)}.${label(63)}.${label(62)}`)).toBe('must be at most 253 characters long');
    expect(hostnameProblem(label(64))).toBe('has a label longer than 63 characters');
    for (const empty of ['a..b', '.a', 'a.']) expect(hostnameProblem(empty), empty).toBe('must not contain empty labels');
    for (const bad of ['-a', 'a-', 'a_b', 'a b', 'é.example', 'a.-b']) expect(hostnameProblem(bad), bad).toMatch(/^may only contain letters/);
    expect(hostnameProblem('example', { minLabels: 2 })).toBe('must have at least 2 labels');
    expect(hostnameProblem('a.example', { minLabels: 2 })).toBeNull();
  });

  it('takes `_` in labels and a leading `*` label only when told', () => {
    expect(hostnameProblem('_sip._tcp.example', { underscore: true })).toBeNull();
    expect(hostnameProblem('_sip._tcp.example')).toMatch(/^may only contain/);
    expect(hostnameProblem('_-', { underscore: true })).toMatch(/^may only contain/);
    for (const w of ['*.example', '*', '*._tcp.example']) expect(hostnameProblem(w, { underscore: true, wildcard: true }), w).toBeNull();
    expect(hostnameProblem('*.example')).toMatch(/^must not contain a \* label/);
    for (const later of ['a.*.example', '*.*.example']) expect(hostnameProblem(later, { wildcard: true }), later).toMatch(/^may only contain/);
    expect(hostnameProblem('*a.example', { wildcard: true })).toMatch(/^may only contain/);
  });
});

describe('relativeName', () => {
  it('makes names inside the zone relative, in any letter case, and refuses absolute names outside it', () => {
    const zone = 'example.com';
    const cases: [string, string | null][] = [
      ['', ''], ['@', ''], [' example.com. ', ''], ['Example.COM', ''], ['www', 'www'], ['www.example.com.', 'www'], ['WWW.Example.Com', 'WWW'],
      ['a.b.example.com', 'a.b'], ['xexample.com.', null], ['xexample.com', 'xexample.com'], ['other.org.', null], ['other.org', 'other.org'], ['com.', null],
    ];
    for (const [raw, rel] of cases) expect(relativeName(raw, zone), raw).toBe(rel);
  });
});
