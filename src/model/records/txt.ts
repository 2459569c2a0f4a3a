import { Type } from '@sinclair/typebox';
import type { Problems } from '../errors.js';
import { WireError } from '../labels.js';
import { fromColumns, nameField, ttlField, v3Columns, v4Columns } from './common.js';
import { PresentationError, quoteString, unescape } from './presentation.js';
import type { RecordData, RecordFields, RecordType, V3Mapping } from './types.js';

/**
 * Longest value accepted, in UTF-8 bytes. One such record, split into 255-byte strings, still fits a
 * 65535-byte TCP message with a maximal question, the SOA-free answer header and an OPT record.
 */
export const MAX_TXT_BYTES = 64000;
const CHUNK = 255;
/** Most character-strings a customer may give: as many as the longest value of ASCII takes when split. */
const MAX_STRINGS = Math.ceil(MAX_TXT_BYTES / CHUNK);

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
 * The data of character-strings. TXT data is `text`, the UTF-8 reading of all its octets, and `strings` (each a
 * latin1 string of its octets) only when splitting that text into 255-byte strings would not give them back:
 * so a record of one string (any length) is `{ text }` as it always was, and string boundaries (which SPF,
 * DKIM, DNS-SD and others give meaning to) and any octets survive every door.
 */
function fromStrings(strings: Buffer[]): RecordFields {
  const all = Buffer.concat(strings);
  const text = all.toString('utf8');
  const split = splitTxt(text);
  const same = Buffer.from(text, 'utf8').equals(all) && split.length === strings.length && split.every((s, i) => s.equals(strings[i] as Buffer));
  return same ? { text } : { text, strings: strings.map((s) => s.toString('latin1')) };
}

const stringsOf = (data: RecordFields): Buffer[] =>
  Array.isArray(data.strings) ? (data.strings as string[]).map((s) => Buffer.from(s, 'latin1')) : splitTxt(String(data.text));

/** Strings as text (each octet string read as UTF-8, as a customer's strings are). */
const textsOf = (data: RecordFields): string[] => stringsOf(data).map((s) => s.toString('utf8'));

/** A mirror's TXT data: the strings as the master sent them (octets, latin1), when they fit character-strings. */
function transferredData(data: RecordFields): RecordFields {
  const text = typeof data.text === 'string' ? data.text : '';
  const strings = Array.isArray(data.strings) && data.strings.every((s) => typeof s === 'string' && s.length <= CHUNK) ? data.strings : undefined;
  return strings ? { text, strings } : { text };
}

/**
 * A customer's TXT data (any door but a zone transfer to a mirror): its strings are text, so each is read as
 * UTF-8 (as a one-string value always was) and `text` made from them; the 255-byte split form is `{ text }`.
 */
function customerData(data: RecordFields): RecordFields {
  const strings = Array.isArray(data.strings) && data.strings.every((s) => typeof s === 'string') ? (data.strings as string[]) : undefined;
  if (!strings) return { text: typeof data.text === 'string' ? data.text : '' };
  return fromStrings(strings.map((s) => Buffer.from(Buffer.from(s, 'latin1').toString('utf8'), 'utf8')));
}

/**
 * A customer's own strings (a text's 255-byte split is not checked: it is shown and taken as the text): at most
 * as many as interface B's list may hold, each a character-string once read as UTF-8.
 */
function customerStrings(strings: Buffer[], p: Problems): void {
  if (strings.length > MAX_STRINGS) p.add('text', `A TXT record may hold at most ${MAX_STRINGS} strings.`);
  else if (strings.some((s) => s.length > CHUNK)) p.add('text', 'Each TXT string may hold at most 255 bytes.');
}

/** Interface A's Target: the text of a one-string record, the master-file form of a record of several. */
const v3Target = (data: RecordFields): string => (Array.isArray(data.strings) ? TXT.present(data) : String(data.text));

/** Interface A's columns of TXT (Linode API v4 keeps them). */
const TXT_COLUMNS: V3Mapping = {
  // A Target given back as listed keeps the record's strings; any other Target is one string, as always.
  fromV3: (cols, _ctx, _p, previous?: RecordData) =>
    fromColumns('TXT', cols, previous?.type === 'TXT' && cols.target === v3Target(previous.data) ? previous.data : { text: cols.target }),
  toV3: (rec) => v3Columns(rec, { target: v3Target(rec.data) }),
};

export const TXT: RecordType = {
  type: 'TXT',
  code: 16,
  description: 'Text',
  apexAllowed: true,
  v3: TXT_COLUMNS,
  v4: v4Columns(TXT_COLUMNS),
  v1Fields: {
    name: nameField,
    text: Type.Union(
      [
        Type.String({ minLength: 1, maxLength: MAX_TXT_BYTES }),
        Type.Array(Type.String({ maxLength: CHUNK }), { minItems: 1, maxItems: MAX_STRINGS }),
      ],
      { description: `The text; up to ${MAX_TXT_BYTES} bytes, split into 255-byte strings when served. A list gives the character-strings one by one (each up to 255 bytes)` },
    ),
    ttl: ttlField,
  },
  v1Required: ['text'],
  fromV1(body) {
    const text = Array.isArray(body.text) && body.text.every((s) => typeof s === 'string') ? (body.text as string[]) : undefined;
    const data = text ? { text: text.join(''), strings: text.map((s) => Buffer.from(s, 'utf8').toString('latin1')) } : { text: body.text };
    return { type: 'TXT', name: typeof body.name === 'string' ? body.name : '', ttl: typeof body.ttl === 'number' ? body.ttl : 0, data };
  },
  toV1: (rec) => ({ name: rec.name, text: Array.isArray(rec.data.strings) ? textsOf(rec.data) : rec.data.text, ttl: rec.ttl }),
  validate(rec, ctx, p) {
    // Strings as a master sent them are kept as octets for mirrors; customers' strings are text.
    rec.data = ctx.transferred ? transferredData(rec.data) : customerData(rec.data);
    const text = rec.data.text as string;
    if (text === '') p.add('text', 'A TXT record needs a value.');
    else if (Buffer.byteLength(text, 'utf8') > MAX_TXT_BYTES) p.add('text', `The TXT value must be at most ${MAX_TXT_BYTES} bytes long.`);
    else if (CONTROL.test(text)) p.add('text', 'The TXT value must not contain control characters.');
    else if (!ctx.transferred && Array.isArray(rec.data.strings)) customerStrings(stringsOf(rec.data), p);
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
