/** The lists a node keeps with their version (store/kept-lists.ts): dropped by a new connection, by age, and by count. */
import { describe, expect, it } from 'vitest';
import { KeptLists } from '../../src/store/kept-lists.js';

const rows = (n: number) => Array.from({ length: n }, (_, id) => ({ id }));

describe('kept lists', () => {
  it('keeps a list for a minute after its read, not longer', () => {
    const kept = new KeptLists();
    kept.set('a', kept.generation, { versions: 'v1', rows: rows(3), readAt: 1000 });
    expect(kept.get('a', 61_000)?.versions).toBe('v1');
    expect(kept.get('a', 61_001)).toBeUndefined();
  });

  it('forgets everything on a new connection, and keeps nothing read before it', () => {
    const kept = new KeptLists();
    const before = kept.generation;
    kept.set('a', before, { versions: 'v1', rows: rows(3), readAt: 0 });
    kept.forget();
    expect(kept.get('a', 0)).toBeUndefined();
    kept.set('b', before, { versions: 'v2', rows: rows(3), readAt: 0 });
    expect(kept.get('b', 0)).toBeUndefined();
    kept.set('b', kept.generation, { versions: 'v2', rows: rows(3), readAt: 0 });
    expect(kept.get('b', 0)?.versions).toBe('v2');
  });

  it('drops the lists used least recently past 20,000 rows', () => {
    const kept = new KeptLists();
    for (const slot of ['a', 'b', 'c']) kept.set(slot, kept.generation, { versions: slot, rows: rows(8_000), readAt: 0 });
    expect(kept.get('a', 0)).toBeUndefined();
    expect(kept.get('b', 0)?.versions).toBe('b');
    kept.set('d', kept.generation, { versions: 'd', rows: rows(8_000), readAt: 0 });
    expect(kept.get('c', 0)).toBeUndefined();
    expect(kept.get('b', 0)?.versions).toBe('b');
    kept.set('huge', kept.generation, { versions: 'h', rows: rows(20_001), readAt: 0 });
    expect(kept.get('huge', 0)).toBeUndefined();
    expect(kept.get('d', 0)?.versions).toBe('d');
  });
});
