/**
 * Domain names as DNS carries them: labels of octets. Names in the model are presentation text without the
 * trailing dot, where `\.` is a dot inside a label and `\\` a backslash (as in an SOA RNAME); every other
 * character is one octet (latin1). Lookup keys are such names with ASCII letters lower-cased.
 */

/** A name or rdata that cannot be put on the wire, or wire data that cannot be read. */
export class WireError extends Error {}

export const MAX_NAME_WIRE = 255;
const MAX_LABEL = 63;

const escapeLabel = (label: string): string => (/[.\\]/.test(label) ? label.replace(/[.\\]/g, '\\$&') : label);

/** Lower-cases ASCII letters only (DNS case-insensitivity is ASCII-only). */
export function lowerAscii(s: string): string {
  return /[A-Z]/.test(s) ? s.replace(/[A-Z]+/g, (m) => m.toLowerCase()) : s;
}

/** A name given as labels, in the model's form (dots and backslashes inside labels escaped). */
export const nameOfLabels = (labels: readonly string[]): string => labels.map(escapeLabel).join('.');

/** The lookup key of a name given as labels. */
export const keyOfLabels = (labels: readonly string[]): string => lowerAscii(nameOfLabels(labels));

/** The key of the parent name ('' above a top-level name); escaped dots do not end a label. */
export function parentKey(key: string): string {
  const dot = firstLabelEnd(key);
  return dot < 0 ? '' : key.slice(dot + 1);
}

/** Where the first label of a lookup key ends: the index of the first dot not escaped (`\.`), or -1. */
export function firstLabelEnd(key: string): number {
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c === 0x5c) i++;
    else if (c === 0x2e) return i;
  }
  return -1;
}

/** Whether the name with lookup key `key` is `apex` or lies below it. */
export const isWithin = (key: string, apex: string): boolean => key === apex || key.endsWith('.' + apex);

/** Splits a name (a trailing dot is allowed; `\.` is a dot inside a label) into labels. */
export function splitName(name: string): string[] {
  const n = name.endsWith('.') && !name.endsWith('\\.') ? name.slice(0, -1) : name;
  if (n === '') return [];
  if (!n.includes('\\')) return n.split('.');
  const labels: string[] = [];
  let cur = '';
  for (let i = 0; i < n.length; i++) {
    const c = n[i];
    if (c === '\\' && i + 1 < n.length) cur += n[++i];
    else if (c === '.') {
      labels.push(cur);
      cur = '';
    } else cur += c;
  }
  labels.push(cur);
  return labels;
}

/** The lookup key of a name (without escapes, the name itself when it is lower case already). */
export function keyOf(name: string): string {
  if (name.includes('\\')) return keyOfLabels(splitName(name));
  return lowerAscii(name.endsWith('.') ? name.slice(0, -1) : name);
}

/** Throws WireError unless `name` fits the wire: labels of 1..63 octets, 255 octets in all. */
export function checkName(name: string): void {
  const labels = name.includes('\\') ? splitName(name) : null;
  let total = 1;
  const label = (len: number) => {
    if (len === 0 || len > MAX_LABEL) throw new WireError(`bad label in ${name}`);
    total += len + 1;
  };
  if (labels) for (const l of labels) label(Buffer.byteLength(l, 'latin1'));
  else {
    // Without escapes a label's octets are its characters (latin1): measured without splitting.
    const end = name.endsWith('.') ? name.length - 1 : name.length;
    for (let start = 0, i = 0; end > 0 && i <= end; i++) {
      if (i === end || name.charCodeAt(i) === 46) {
        label(i - start);
        start = i + 1;
      }
    }
  }
  if (total > MAX_NAME_WIRE) throw new WireError(`name too long: ${name}`);
}

/**
 * Reads a (possibly compressed) name from a message; bounded: pointers only backwards (no loops),
 * labels <= 63 octets, names <= 255.
 */
export function readName(buf: Buffer, offset: number): { labels: string[]; end: number } {
  const labels: string[] = [];
  let pos = offset;
  let end = -1;
  let total = 1;
  for (let jumps = 0; ; ) {
    if (pos >= buf.length) throw new WireError('name runs past the message');
    const len = buf[pos] as number;
    if (len === 0) {
      if (end < 0) end = pos + 1;
      break;
    }
    if ((len & 0xc0) === 0xc0) {
      if (pos + 1 >= buf.length) throw new WireError('truncated pointer');
      if (end < 0) end = pos + 2;
      const target = ((len & 0x3f) << 8) | (buf[pos + 1] as number);
      // Pointers must go backwards; that alone rules out loops, the counter is a second fence.
      if (target >= pos || ++jumps > 127) throw new WireError('bad compression pointer');
      pos = target;
      continue;
    }
    total = boundedLabel(buf, pos, len, total);
    labels.push(buf.toString('latin1', pos + 1, pos + 1 + len));
    pos += 1 + len;
  }
  return { labels, end };
}

/**
 * Where a name written out in full (no compression pointer) that starts at `offset` ends, bounded as readName
 * bounds it; -1 where a pointer is met (readName reads such a name).
 */
export function plainNameEnd(buf: Buffer, offset: number): number {
  for (let pos = offset, total = 1; ; ) {
    if (pos >= buf.length) throw new WireError('name runs past the message');
    const len = buf[pos] as number;
    if (len === 0) return pos + 1;
    if ((len & 0xc0) === 0xc0) return -1;
    total = boundedLabel(buf, pos, len, total);
    pos += 1 + len;
  }
}

/** The labels of a name written out in full from `offset` to `end` (plainNameEnd's, which bounded it): one string, sliced. */
export function plainNameLabels(buf: Buffer, offset: number, end: number): string[] {
  const whole = buf.toString('latin1', offset, end);
  const labels: string[] = [];
  for (let i = 0; i < whole.length - 1; i += 1 + whole.charCodeAt(i)) labels.push(whole.slice(i + 1, i + 1 + whole.charCodeAt(i)));
  return labels;
}

/** Where plainNameKey writes: each of 255 octets may be escaped. */
const keyScratch = Buffer.alloc(2 * MAX_NAME_WIRE);

/**
 * The lookup key (keyOfLabels) of a name written out in full at `offset` (plainNameEnd has bounded it), made in
 * one pass over its octets: ASCII letters lower-cased, dots and backslashes in labels escaped, labels joined by dots.
 */
export function plainNameKey(buf: Buffer, offset: number): string {
  let n = 0;
  for (let pos = offset, len = buf[pos] as number; len !== 0; pos += 1 + len, len = buf[pos] as number) {
    if (n > 0) keyScratch[n++] = 0x2e;
    for (let i = pos + 1; i <= pos + len; i++) {
      const c = buf[i] as number;
      if (c === 0x2e || c === 0x5c) keyScratch[n++] = 0x5c;
      keyScratch[n++] = c >= 0x41 && c <= 0x5a ? c | 0x20 : c;
    }
  }
  return keyScratch.toString('latin1', 0, n);
}

/** Checks the label of `len` octets at `buf[pos]` in a name whose labels took `total` octets before it; the new total. */
function boundedLabel(buf: Buffer, pos: number, len: number, total: number): number {
  if (len > MAX_LABEL) throw new WireError('bad label length');
  const after = total + len + 1;
  if (after > MAX_NAME_WIRE) throw new WireError('name too long');
  if (pos + 1 + len > buf.length) throw new WireError('label runs past the message');
  return after;
}
