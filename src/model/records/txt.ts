import { Type } from '@sinclair/typebox';
import { commonFromV1, nameField, ttlField } from './common.js';
import type { RecordType } from './types.js';

/**
 * Longest value accepted, in UTF-8 bytes. One such record, split into 255-byte strings, still fits a
 * 65535-byte TCP message with a maximal question, the SOA-free answer header and an OPT record.
 */
export const MAX_TXT_BYTES = 64000;
const CHUNK = 255;

// Control characters are refused: they have no use in TXT values and break zone-file tooling.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f]/;

/** Splits a value into the 255-byte character-strings of the wire format, never inside a UTF-8 sequence. */
export function splitTxt(value: string): Buffer[] {
  const bytes = Buffer.from(value, 'utf8');
  if (bytes.length === 0) return [Buffer.alloc(0)];
  const chunks: Buffer[] = [];
  let start = 0;
  while (start < bytes.length) {
    let end = Math.min(start + CHUNK, bytes.length);
    // Step back over continuation bytes (10xxxxxx) so a character is not cut in two.
    if (end < bytes.length) while (end > start && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
    chunks.push(bytes.subarray(start, end));
    start = end;
  }
  return chunks;
}

export const TXT: RecordType = {
  type: 'TXT',
  description: 'Text',
  caseSensitiveTarget: true,
  apexAllowed: true,
  fromV3: (rec) => rec,
  v1Fields: {
    name: nameField,
    text: Type.String({ minLength: 1, maxLength: MAX_TXT_BYTES, description: `The text; up to ${MAX_TXT_BYTES} bytes, split into 255-byte strings when served` }),
    ttl: ttlField,
  },
  v1Required: ['text'],
  fromV1(body) {
    const rec = commonFromV1('TXT', body);
    if (typeof body.text === 'string') rec.target = body.text;
    return rec;
  },
  toV1: (rec) => ({ name: rec.name, text: rec.target, ttl: rec.ttl }),
  validate(rec, _ctx, p) {
    if (rec.target === '') p.add('target', 'A TXT record needs a value.');
    else if (Buffer.byteLength(rec.target, 'utf8') > MAX_TXT_BYTES) p.add('target', `The TXT value must be at most ${MAX_TXT_BYTES} bytes long.`);
    else if (CONTROL.test(rec.target)) p.add('target', 'The TXT value must not contain control characters.');
  },
  toWire: (rec) => splitTxt(rec.target),
  fromWire(data) {
    const parts = (Array.isArray(data) ? data : [data]) as (Buffer | string)[];
    const target = parts.map((x) => (typeof x === 'string' ? x : x.toString('utf8'))).join('');
    return { target, priority: 10, weight: 5, port: 80, protocol: '', tag: '' };
  },
};
