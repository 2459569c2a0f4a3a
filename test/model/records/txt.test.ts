/**
 * TXT's data: one text (`{ text }`, split into 255-byte strings on the wire) or, when the strings are not that
 * split, the strings kept beside it; what each door makes of it (master files, the wire, interfaces A and B)
 * and what customers may give (text) against what a master may send a mirror (any octets).
 */
import { describe, expect, it } from 'vitest';
import { Problems } from '../../../src/model/errors.js';
import { fromV1, recordTypeOrThrow, toV1, type RecordData } from '../../../src/model/records/index.js';
import { V3_DEFAULTS } from '../../../src/model/records/types.js';
import { check, fieldsOf, fromWire, parse, present, wireHex } from './support.js';

const TXT = recordTypeOrThrow('TXT');
/** The record of the defect found against BIND, as a master file writes its rdata. */
const BIND_LINE = '"quoted \\"escape\\" and \\\\backslash" "second string"';
const STRINGS = ['quoted "escape" and \\backslash', 'second string'];
const TWO = { text: STRINGS.join(''), strings: STRINGS };

const rec = (data: Record<string, unknown>): RecordData => ({ type: 'TXT', name: 'txt', ttl: 0, data });

describe('TXT data', () => {
  it('keeps the strings of a master-file line, escapes read, and writes them back the same', () => {
    expect(parse('TXT', BIND_LINE)).toEqual(TWO);
    expect(present('TXT', TWO)).toBe(BIND_LINE);
    expect(fromWire('TXT', wireHex('TXT', TWO))).toEqual(TWO);
  });

  it('is one text when the strings are its 255-byte split: one string, or a long text cut where the wire cuts it', () => {
    expect(parse('TXT', '"just one"')).toEqual({ text: 'just one' });
    const long = 'x'.repeat(300);
    expect(parse('TXT', `"${long.slice(0, 255)}" "${long.slice(255)}"`)).toEqual({ text: long });
    expect(present('TXT', { text: long })).toBe(`"${long.slice(0, 255)}" "${long.slice(255)}"`);
  });

  it('keeps a customer\'s strings through checkRecord, as text: octets that are not UTF-8 read as U+FFFD, as one text always was', () => {
    const { rec: kept, problems } = check('TXT', TWO);
    expect(problems).toEqual([]);
    expect(kept.data).toEqual(TWO);
    expect(check('TXT', parse('TXT', '"a\\255" "b"')).rec.data).toEqual({ text: 'a\ufffdb', strings: ['a\xef\xbf\xbd', 'b'] });
    expect(check('TXT', parse('TXT', '"\\255"')).rec.data).toEqual({ text: '\ufffd' });
    // A mirror keeps the octets as the master sent them.
    expect(check('TXT', parse('TXT', '"a\\255" "b"'), { transferred: true }).rec.data).toEqual({ text: 'a\ufffdb', strings: ['a\xff', 'b'] });
  });

  it('refuses an empty value, control characters and a string over 255 bytes', () => {
    expect(fieldsOf(check('TXT', { text: '', strings: ['', ''] }).problems)).toEqual(['text']);
    expect(fieldsOf(check('TXT', fromV1(TXT, { text: ['a', 'bell\u0007'] }).data).problems)).toEqual(['text']);
    expect(fieldsOf(check('TXT', fromV1(TXT, { text: ['é'.repeat(128), 'x'] }).data).problems)).toEqual(['text']);
    expect(check('TXT', fromV1(TXT, { text: ['é'.repeat(127), 'x'] }).data).problems).toEqual([]);
    // At most 251 strings (what 64000 bytes of ASCII take); a text's own 255-byte split is not counted.
    expect(fieldsOf(check('TXT', fromV1(TXT, { text: Array(252).fill('a') }).data).problems)).toEqual(['text']);
    expect(check('TXT', { text: 'é'.repeat(32000) }).problems).toEqual([]);
  });
});

describe('interface B', () => {
  it('shows one text as a string and several strings as a list, and takes both', () => {
    expect(toV1(rec({ text: 'hello' }))).toEqual({ name: 'txt', text: 'hello', ttl: 0 });
    expect(toV1(rec(TWO))).toEqual({ name: 'txt', text: STRINGS, ttl: 0 });
    const taken = fromV1(TXT, { name: 'txt', text: STRINGS });
    expect(check('TXT', taken.data).rec.data).toEqual(TWO);
    expect(check('TXT', fromV1(TXT, { text: 'hello' }).data).rec.data).toEqual({ text: 'hello' });
    // A list of one string is that text; so is a list that is the text's 255-byte split.
    expect(check('TXT', fromV1(TXT, { text: ['alone'] }).data).rec.data).toEqual({ text: 'alone' });
    expect(check('TXT', fromV1(TXT, { text: ['x'.repeat(255), 'y'] }).data).rec.data).toEqual({ text: `${'x'.repeat(255)}y` });
  });

  it('gives strings beyond ASCII as their UTF-8 text', () => {
    const data = check('TXT', fromV1(TXT, { text: ['ü', 'é'] }).data).rec.data;
    expect(data).toEqual({ text: 'üé', strings: ['\xc3\xbc', '\xc3\xa9'] });
    expect(toV1(rec(data)).text).toEqual(['ü', 'é']);
  });
});

describe('interface A', () => {
  const v3 = TXT.v3 as NonNullable<typeof TXT.v3>;
  const cols = (target: string) => ({ ...V3_DEFAULTS, name: 'txt', target });

  it('lists one text as it is and several strings in master-file form', () => {
    expect(v3.toV3(rec({ text: 'hello "world"' })).target).toBe('hello "world"');
    expect(v3.toV3(rec(TWO)).target).toBe(BIND_LINE);
  });

  it('keeps the strings when an update gives the Target back as listed; any other Target is one text', () => {
    const previous = rec(TWO);
    expect(v3.fromV3(cols(BIND_LINE), { zone: 'example.com' }, new Problems(), previous).data).toEqual(TWO);
    expect(v3.fromV3(cols('new'), { zone: 'example.com' }, new Problems(), previous).data).toEqual({ text: 'new' });
    expect(v3.fromV3(cols(BIND_LINE), { zone: 'example.com' }, new Problems()).data).toEqual({ text: BIND_LINE });
  });
});
