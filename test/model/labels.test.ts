/** Names read from the wire: a question written out in full gives the labels and key readName and keyOfLabels give. */
import { describe, expect, it } from 'vitest';
import { keyOfLabels, plainNameEnd, plainNameKey, plainNameLabels, readName } from '../../src/model/labels.js';

/** A message of 12 header octets and `labels` written out in full. */
const message = (labels: string[]) => Buffer.concat([Buffer.alloc(12), ...labels.map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l, 'latin1')])), Buffer.from([0, 0, 1, 0, 1])]);

describe('names written out in full', () => {
  it('read in one pass as readName and keyOfLabels read them: case kept in labels, lower-cased and escaped in the key', () => {
    const names = [['www', 'Example', 'COM'], ['a.b', 'back\\slash', 'x'], ['\u00e9T\u00e9', 'z'], [], ['*', 'wild'], ['a'.repeat(63), 'b'.repeat(63), 'c'.repeat(63), 'd'.repeat(61)]];
    for (const labels of names) {
      const buf = message(labels);
      expect(plainNameEnd(buf, 12)).toBe(readName(buf, 12).end);
      expect(plainNameLabels(buf, 12, plainNameEnd(buf, 12))).toEqual(readName(buf, 12).labels);
      expect(plainNameKey(buf, 12)).toBe(keyOfLabels(labels));
    }
    expect(plainNameKey(message(['a.b', 'C\\D']), 12)).toBe('a\\.b.c\\\\d');
  });
});
