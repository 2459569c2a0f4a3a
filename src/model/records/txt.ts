import { Type } from '@sinclair/typebox';
import { WireError } from '../labels.js';
import { fromColumns, nameField, ttlField, v3Columns } from './common.js';
import { PresentationError, quoteString, unescape } from './presentation.js';
import type { RecordFields, RecordType } from './types.js';

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

/**
 * The data of character-strings as received (from a master, or a master file): `text` their UTF-8 reading,
 * and `strings` (each a latin1 string of its octets) only when that text would not give them back, so that
 * string boundaries (which DNS-SD and others give meaning to) and any octets survive.
 */
function fromStrings(strings: Buffer[]): RecordFields {
  const all = Buffer.concat(strings);
  const text = all.toString('utf8');
  const same = Buffer.from(text, 'utf8').equals(all) && splitTxt(text).length === strings.length && splitTxt(text).every((s, i) => s.equals(strings[i] as Buffer));
  return same ? { text } : { text, strings: strings.map((s) => s.toString('latin1')) };
}

const stringsOf = (data: RecordFields): Buffer[] =>
  Array.isArray(data.strings) ? (data.strings as string[]).map((s) => Buffer.from(s, 'latin1')) : splitTxt(String(data.text));

export const TXT: RecordType = {
  type: 'TXT',
  code: 16,
  description: 'Text',
  apexAllowed: true,
  v3: {
    fromV3: (cols) => fromColumns('TXT', cols, { text: cols.target }),
    toV3: (rec) => v3Columns(rec, { target: String(rec.data.text) }),
  },
  v1Fields: {
    name: nameField,
    text: Type.String({ minLength: 1, maxLength: MAX_TXT_BYTES, description: `The text; up to ${MAX_TXT_BYTES} bytes, split into 255-byte strings when served` }),
    ttl: ttlField,
  },
  v1Required: ['text'],
  validate(rec, ctx, p) {
    const text = typeof rec.data.text === 'string' ? rec.data.text : '';
    // Strings as a master sent them are kept for mirrors only; customers give text.
    const strings = ctx.transferred && Array.isArray(rec.data.strings) && rec.data.strings.every((s) => typeof s === 'string' && s.length <= CHUNK) ? rec.data.strings : undefined;
    rec.data = strings ? { text, strings } : { text };
    if (text === '') p.add('text', 'A TXT record needs a value.');
    else if (Buffer.byteLength(text, 'utf8') > MAX_TXT_BYTES) p.add('text', `The TXT value must be at most ${MAX_TXT_BYTES} bytes long.`);
    else if (CONTROL.test(text)) p.add('text', 'The TXT value must not contain control characters.');
  },
  encode(data, w) {
    for (const s of stringsOf(data)) {
      if (s.length > CHUNK) throw new WireError('a TXT string is longer than 255 octets');
      w.u8(s.length);
      w.bytes(s);
    }
  },
  decode(r) {
    const strings: Buffer[] = [];
    while (r.left > 0) strings.push(r.bytes(r.u8()));
    if (strings.length === 0) throw new WireError('TXT data holds no string');
    return fromStrings(strings);
  },
  present: (data) => stringsOf(data).map(quoteString).join(' '),
  parse(tokens) {
    if (tokens.length === 0) throw new PresentationError('a TXT record needs at least one string');
    const strings = tokens.map((t) => unescape(t.text));
    if (strings.some((s) => s.length > CHUNK)) throw new PresentationError('each TXT string may hold at most 255 octets; split longer text into several quoted strings');
    return fromStrings(strings);
  },
};
