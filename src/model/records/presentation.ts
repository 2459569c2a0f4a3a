/**
 * Master-file text of rdata (RFC 1035 5.1): tokens with quoting, `\X` and `\DDD` escapes, parentheses and
 * comments; names and character-strings written so that any reader gets the same octets back.
 */
import { splitName } from '../labels.js';

/** Rdata text that does not say what its type needs; the message names what is wrong. */
export class PresentationError extends Error {}

/** One whitespace-separated token: its text as written (escapes kept, quotes removed). */
export interface Token {
  text: string;
  quoted: boolean;
}

/** What ends an unquoted token: a blank (RFC 1035 5.1), a comment, a parenthesis or a quote. */
const ENDS_TOKEN = new Set([' ', '\t', '\r', '\n', ';', '(', ')', '"']);

/**
 * Splits rdata text into tokens. Parentheses (which let a record run over several lines) are dropped, a `;`
 * outside quotes starts a comment to the end of the line. Throws on an unclosed quote or parenthesis.
 */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let depth = 0;
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === ' ' || c === '\t' || c === '\r' || c === '\n') i++;
    else if (c === ';') while (i < text.length && text[i] !== '\n') i++;
    else if (c === '(') depth++, i++;
    else if (c === ')') {
      if (--depth < 0) throw new PresentationError('a ")" without its "("');
      i++;
    } else if (c === '"') {
      let out = '';
      for (i++; ; i++) {
        if (i >= text.length) throw new PresentationError('a quoted string is not closed');
        const d = text[i] as string;
        if (d === '"') break;
        if (d === '\\' && i + 1 < text.length) out += d + text[++i];
        else out += d;
      }
      i++;
      tokens.push({ text: out, quoted: true });
    } else {
      // Up to the next blank or special character (the ones the branches above take), escapes kept. Other
      // whitespace (a vertical tab, a no-break space) is part of the token, for the type's rules to refuse:
      // ending the token there too, but not skipping it above, once made an empty token without end.
      const start = i;
      for (; i < text.length && !ENDS_TOKEN.has(text[i] as string); i++) if (text[i] === '\\' && i + 1 < text.length) i++;
      tokens.push({ text: text.slice(start, i), quoted: false });
    }
  }
  if (depth !== 0) throw new PresentationError('a "(" is not closed');
  return tokens;
}

/** The octets a token stands for: `\DDD` is the octet DDD, `\X` the character X; other characters as UTF-8. */
export function unescape(text: string): Buffer {
  if (!text.includes('\\')) return Buffer.from(text, 'utf8');
  const parts: Buffer[] = [];
  let plain = '';
  const flush = () => {
    if (plain) parts.push(Buffer.from(plain, 'utf8'));
    plain = '';
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c !== '\\') {
      plain += c;
      continue;
    }
    const ddd = /^\d{3}/.exec(text.slice(i + 1, i + 4));
    if (ddd) {
      const n = Number(ddd[0]);
      if (n > 255) throw new PresentationError(`\\${ddd[0]} is not an octet`);
      flush();
      parts.push(Buffer.from([n]));
      i += 3;
    } else if (i + 1 < text.length) plain += text[++i];
    else throw new PresentationError('a "\\" ends the text');
  }
  flush();
  return Buffer.concat(parts);
}

/** Letters, digits, `-`, `_` and `*` stand for themselves in a master file; other bytes are escaped. */
const PLAIN = /^[A-Za-z0-9_*-]$/;
const ddd = (byte: number): string => `\\${byte.toString().padStart(3, '0')}`;

/** A name in presentation form, absolute (trailing dot). */
export function presentName(name: string): string {
  const labels = splitName(name);
  if (labels.length === 0) return '.';
  const escape = (label: string): string => {
    let out = '';
    for (const byte of Buffer.from(label, 'latin1')) {
      const c = String.fromCharCode(byte);
      out += PLAIN.test(c) ? c : byte > 0x20 && byte < 0x7f ? `\\${c}` : ddd(byte);
    }
    return out;
  };
  return labels.map(escape).join('.') + '.';
}

/** One character-string, quoted: `"` and `\` escaped, bytes outside printable ASCII as \DDD. */
export function quoteString(bytes: Buffer): string {
  let out = '"';
  for (const byte of bytes) {
    if (byte === 0x22 || byte === 0x5c) out += `\\${String.fromCharCode(byte)}`;
    else out += byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : ddd(byte);
  }
  return out + '"';
}

/**
 * A name token -> the model's form (absolute, no trailing dot): `@` is the origin, a name without its final
 * dot is relative to it. Escaped octets become the octet, except `.` and `\`, which stay escaped.
 */
export function parseName(token: Token | undefined, origin: string, what: string): string {
  if (!token || token.text === '') throw new PresentationError(`${what} is missing`);
  const t = token.text;
  if (t === '@') return origin;
  if (t === '.') return '';
  let out = '';
  let absolute = false;
  for (let i = 0; i < t.length; i++) {
    const c = t[i] as string;
    if (c === '\\') {
      const octet = /^\d{3}/.test(t.slice(i + 1, i + 4)) ? Number(t.slice(i + 1, i + 4)) : -1;
      const ch = octet >= 0 ? String.fromCharCode(octet) : (t[i + 1] ?? '');
      if (octet > 255) throw new PresentationError(`${what}: \\${t.slice(i + 1, i + 4)} is not an octet`);
      i += octet >= 0 ? 3 : 1;
      out += ch === '.' || ch === '\\' ? `\\${ch}` : ch;
    } else if (c === '.' && i === t.length - 1) absolute = true;
    else if (c === '.' && t[i + 1] === '.') throw new PresentationError(`${what} '${t}' has an empty label`);
    else out += c;
  }
  if (out.startsWith('.')) throw new PresentationError(`${what} '${t}' has an empty label`);
  return absolute ? out : origin === '' ? out : `${out}.${origin}`;
}

/** A whole number token within 0..max. */
export function parseUint(token: Token | undefined, max: number, what: string): number {
  if (!token) throw new PresentationError(`${what} is missing`);
  if (!/^\d+$/.test(token.text) || Number(token.text) > max) throw new PresentationError(`${what} must be a whole number from 0 to ${max}, not '${token.text}'`);
  return Number(token.text);
}

/** The remaining tokens as one hex string (master files may split it with spaces), upper case. */
export function parseHex(tokens: Token[], what: string, allowEmpty = false): string {
  const hex = tokens.map((t) => t.text).join('');
  if (hex === '-' && allowEmpty) return '';
  if ((!allowEmpty && hex === '') || !/^([0-9a-fA-F]{2})*$/.test(hex)) throw new PresentationError(`${what} must be hexadecimal, an even number of digits`);
  return hex.toUpperCase();
}

/** Throws unless every token has been used. */
export function noMore(tokens: Token[], used: number, type: string): void {
  if (tokens.length > used) throw new PresentationError(`${type} data has more fields than it should ('${tokens[used]?.text}')`);
}
