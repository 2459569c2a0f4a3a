/**
 * SVCB (RFC 9460), and HTTPS built from the same code (`serviceBinding`): `svc_priority` (0 is AliasMode),
 * `target_name` ("." is the owner itself, RFC 9460 2.5) and `svc_params`, an object keyed by the SvcParamKeys'
 * presentation names. Values are JSON: lists as arrays, `no-default-alpn` as true, `ech` in base64, and a key
 * without a name (`key667`) as its value's master-file text (escapes kept, without the quotes).
 */
import * as ip from '@leichtgewicht/ip-codec';
import { Type, type TSchema } from '@sinclair/typebox';
import type { Problems } from '../errors.js';
import { WireError } from '../labels.js';
import { canonicalIPv6, isIPv4Address, isIPv6Address } from '../names.js';
import { ipv6Bytes } from './aaaa.js';
import { hostField, nameField, presentHost, ttlField, uint16Field, validateHost, validateUint } from './common.js';
import { parseName, parseUint, PresentationError, quoteString, unescape, type Token } from './presentation.js';
import type { RecordType } from './types.js';

/** One SvcParamKey's value: its JSON schema, its rules and its three other forms. Rules throw PresentationError. */
interface ParamKind {
  readonly schema: TSchema;
  /**
   * The value as stored, from JSON or from fromText; `lenient` for a master's data and master files, which
   * may hold any octets where customers get printable ASCII.
   */
  check(value: unknown, lenient: boolean): unknown;
  /** The value of its master-file text (char-string escapes undone: one character per octet), for check. */
  fromText(text: string): unknown;
  toWire(value: unknown): Buffer;
  /** Throws WireError on a malformed value. */
  fromWire(octets: Buffer): unknown;
  /** The master-file text after `key=`, or null for a key shown without a value. */
  present(value: unknown): string | null;
}

const bad = (message: string): never => {
  throw new PresentationError(message);
};

/** The SvcParamKeys RFC 9460 registers (14.3.2), each at its number. */
const NAMES = ['mandatory', 'alpn', 'no-default-alpn', 'port', 'ipv4hint', 'ech', 'ipv6hint'];
/** Any key by number (RFC 9460 2.1), without leading zeros. */
const GENERIC_KEY = 'key(?:0|[1-9][0-9]{0,4})';
const GENERIC = new RegExp(`^${GENERIC_KEY}$`);

/** A key's number from its presentation name (`alpn`, `key667`), or undefined. */
function keyNumber(name: string): number | undefined {
  if (!GENERIC.test(name)) return NAMES.includes(name) ? NAMES.indexOf(name) : undefined;
  const n = Number(name.slice(3));
  return n <= 65535 ? n : undefined;
}
const keyName = (key: number): string => NAMES[key] ?? `key${key}`;

/** RFC 9460 A.1: a comma-separated list in which `\,` is a comma and `\\` a backslash inside an item. */
function splitList(text: string): string[] {
  const items: string[] = [];
  let item = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '\\') item += text[++i] ?? bad('a "\\" ends the list');
    else if (c === ',') {
      items.push(item);
      item = '';
    } else item += c;
  }
  return [...items, item];
}

/** A non-empty array whose items `item` checks (it returns an item's stored form or null when the item is wrong). */
function listOf(value: unknown, field: string, what: string, item: (s: string) => string | null): string[] {
  if (!Array.isArray(value) || value.length === 0) return bad(`${field} must be a list of one or more ${what}.`);
  return value.map((v) => (typeof v === 'string' ? item(v) : null) ?? bad(`${field} must be a list of ${what}, not ${JSON.stringify(v)}.`));
}

/** The octets of a string of one character per octet. */
const latin1 = (s: string): Buffer => Buffer.from(s, 'latin1');
/** Two-octet numbers (keys, a port) in network order. */
const u16s = (ns: number[]): Buffer => {
  const b = Buffer.alloc(ns.length * 2);
  ns.forEach((n, i) => b.writeUInt16BE(n, i * 2));
  return b;
};

/** ipv4hint or ipv6hint: addresses of one family, packed on the wire; IPv6 ones in RFC 5952 text. */
function addressKind(family: 4 | 6): ParamKind {
  const [size, valid, canonical, toBytes, fromBytes] =
    family === 4
      ? [4, isIPv4Address, (s: string) => s, (s: string) => Buffer.from(ip.v4.encode(s)), (b: Buffer) => ip.v4.decode(b)]
      : [16, isIPv6Address, canonicalIPv6, ipv6Bytes, (b: Buffer) => canonicalIPv6(ip.v6.decode(b))];
  const field = `svc_params.ipv${family}hint`;
  const what = `IPv${family} addresses`;
  return {
    schema: Type.Array(Type.String({ format: `ipv${family}` }), { minItems: 1, description: `${what} of the target, which clients may use before they have looked them up` }),
    check: (value) => listOf(value, field, what, (s) => (valid(s) ? canonical(s) : null)),
    fromText: splitList,
    toWire: (value) => Buffer.concat((value as string[]).map(toBytes)),
    fromWire(octets) {
      if (octets.length === 0 || octets.length % size !== 0) throw new WireError(`ipv${family}hint must hold a multiple of ${size} octets`);
      return Array.from({ length: octets.length / size }, (_, i) => fromBytes(octets.subarray(i * size, (i + 1) * size)));
    },
    present: (value) => (value as string[]).join(','),
  };
}

/** A list of keys, stored by name in key order (RFC 9460 8: sorted, each once, never `mandatory` itself). */
const keyList = (value: unknown): string[] => {
  const keys = listOf(value, 'svc_params.mandatory', 'SvcParamKey names', (s) => {
    const n = keyNumber(s);
    return n === undefined ? null : keyName(n);
  }).map((s) => keyNumber(s) as number);
  if (keys.includes(0)) bad('svc_params.mandatory must not list mandatory itself.');
  if (new Set(keys).size !== keys.length) bad('svc_params.mandatory must list each key once.');
  return keys.sort((a, b) => a - b).map(keyName);
};

const mandatory: ParamKind = {
  schema: Type.Array(Type.String({ pattern: `^(?:${NAMES.slice(1).join('|')}|${GENERIC_KEY})$` }), {
    minItems: 1,
    uniqueItems: true,
    description: 'Keys of this record that a client must understand to use it (each one present here)',
  }),
  check: keyList,
  fromText: splitList,
  toWire: (value) => u16s((value as string[]).map((s) => keyNumber(s) as number)),
  fromWire(octets) {
    if (octets.length === 0 || octets.length % 2 !== 0) throw new WireError('mandatory must hold one or more two-octet keys');
    const keys = Array.from({ length: octets.length / 2 }, (_, i) => octets.readUInt16BE(i * 2));
    if (keys.some((k, i) => i > 0 && k <= (keys[i - 1] as number))) throw new WireError('the keys in mandatory must be in increasing order');
    return keys.map(keyName);
  },
  present: (value) => (value as string[]).join(','),
};

/** What customers may give as an ALPN id: printable ASCII, as every registered id is. */
const ALPN_ID = /^[\x21-\x7e]{1,255}$/;

const alpn: ParamKind = {
  schema: Type.Array(Type.String({ minLength: 1, maxLength: 255 }), {
    minItems: 1,
    description: 'ALPN protocol ids the endpoint offers, such as "h2", "h3" or "http/1.1" (printable ASCII)',
  }),
  check: (value, lenient) =>
    listOf(value, 'svc_params.alpn', 'ALPN protocol ids (1 to 255 printable ASCII characters, such as h2 or http/1.1)', (s) =>
      // A master's ids may hold any octets (one character each).
      (lenient ? s !== '' && s.length <= 255 && /^[\x00-\xff]*$/.test(s) : ALPN_ID.test(s)) ? s : null,
    ),
  fromText: splitList,
  toWire: (value) => Buffer.concat((value as string[]).flatMap((s) => [Buffer.from([s.length]), latin1(s)])),
  fromWire(octets) {
    const ids: string[] = [];
    for (let i = 0; i < octets.length; ) {
      const len = octets[i] as number;
      if (len === 0 || i + 1 + len > octets.length) throw new WireError('an ALPN id in alpn is empty or runs past the value');
      ids.push(octets.toString('latin1', i + 1, i + 1 + len));
      i += 1 + len;
    }
    if (ids.length === 0) throw new WireError('alpn must hold at least one ALPN id');
    return ids;
  },
  // As BIND prints it: quoted, commas and backslashes inside an id escaped twice (RFC 9460 A.1), spaces as \032.
  present: (value) => quoteString(latin1((value as string[]).map((s) => s.replace(/[\\,]/g, '\\$&')).join(','))).replace(/ /g, '\\032'),
};

const noDefaultAlpn: ParamKind = {
  schema: Type.Literal(true, { description: 'true: the endpoint does not offer the protocol the scheme implies (HTTP/1.1 for HTTPS); needs alpn' }),
  check: (value) => (value === true ? true : bad('svc_params.no-default-alpn takes no value other than true.')),
  fromText: (text) => text === '' || bad('svc_params.no-default-alpn takes no value.'),
  toWire: () => Buffer.alloc(0),
  fromWire(octets) {
    if (octets.length !== 0) throw new WireError('no-default-alpn must be empty');
    return true;
  },
  present: () => null,
};

const port: ParamKind = {
  schema: uint16Field('TCP or UDP port of the endpoint, when it is not the default one'),
  check: (value) => (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 65535 ? value : bad('svc_params.port must be a whole number between 0 and 65535.')),
  fromText: (text) => parseUint({ text, quoted: false }, 65535, 'svc_params.port'),
  toWire: (value) => u16s([value as number]),
  fromWire(octets) {
    if (octets.length !== 2) throw new WireError('port must hold two octets');
    return octets.readUInt16BE(0);
  },
  present: (value) => String(value),
};

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

const ech: ParamKind = {
  schema: Type.String({ minLength: 4, pattern: BASE64.source, description: 'The ECHConfigList for TLS Encrypted Client Hello, in base64' }),
  check: (value) =>
    // Only the canonical spelling (unused bits zero), as BIND takes it.
    typeof value === 'string' && value !== '' && BASE64.test(value) && Buffer.from(value, 'base64').toString('base64') === value
      ? value
      : bad('svc_params.ech must be an ECHConfigList in base64 (RFC 4648 4, with its padding).'),
  fromText: (text) => text,
  toWire: (value) => Buffer.from(String(value), 'base64'),
  fromWire(octets) {
    if (octets.length === 0) throw new WireError('ech must not be empty');
    return octets.toString('base64');
  },
  present: (value) => String(value),
};

/** The value of a key RFC 9460 does not name: its octets, kept as their master-file text (BIND's, without the quotes). */
const generic: ParamKind = {
  schema: Type.String({ description: 'The value of a key without a name (key667), as master-file text: \\DDD for other octets' }),
  check(value) {
    if (typeof value !== 'string') return bad('The value of a keyNNNNN parameter must be a string (master-file text).');
    try {
      return quoteString(unescape(value)).slice(1, -1);
    } catch (e) {
      return bad(`The value of a keyNNNNN parameter must be master-file text (\\DDD or \\X for one octet): ${(e as Error).message}.`);
    }
  },
  fromText: (text) => quoteString(latin1(text)).slice(1, -1),
  toWire: (value) => unescape(String(value)),
  fromWire: (octets) => quoteString(octets).slice(1, -1),
  present: (value) => (value === '' ? null : `"${String(value)}"`),
};
/** The kinds of the named keys, at their numbers (as NAMES). */
const KINDS: ParamKind[] = [mandatory, alpn, noDefaultAlpn, port, addressKind(4), ech, addressKind(6)];
const kindOf = (key: number): ParamKind => KINDS[key] ?? generic;

type Params = Record<string, unknown>;

/** The largest value a parameter's two-octet length can give. */
const MAX_VALUE = 65535;

/** The parameters with their keys in key order (how they are stored, shown and sent). */
const sorted = (entries: [number, unknown][]): Params => Object.fromEntries(entries.sort((a, b) => a[0] - b[0]).map(([k, v]) => [keyName(k), v]));

/** RFC 9460 7.1.1 and 8: what makes a ServiceMode record self-consistent, as [key, problem]. */
function consistencyProblems(params: Params): [string, string][] {
  const out: [string, string][] = [];
  const missing = ((params.mandatory as string[] | undefined) ?? []).filter((k) => !(k in params));
  if (missing.length > 0) out.push(['mandatory', `svc_params.mandatory lists ${missing.join(', ')}, which the record does not have; list only keys it has.`]);
  if ('no-default-alpn' in params && !('alpn' in params)) out.push(['no-default-alpn', 'svc_params.no-default-alpn needs alpn: the protocols the endpoint offers instead.']);
  return out;
}

/** The key of a JSON property (a name, or keyNNNNN for a key without one), or a problem. */
function jsonKey(key: string, lenient: boolean): number | string {
  const n = keyNumber(key);
  if (n === undefined) return `'${key}' is not a SvcParamKey: use ${NAMES.join(', ')}, or keyNNNNN (0-65534) for another key.`;
  if (keyName(n) !== key) return `Give key${n} by its name, ${keyName(n)}.`;
  if (n === 65535 && !lenient) return 'key65535 is reserved (RFC 9460 14.3.2) and cannot be used.';
  return n;
}

function validateParams(raw: unknown, lenient: boolean, p: Problems): Params {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    p.add('svc_params', 'svc_params must be an object of SvcParamKeys and their values, such as {"alpn": ["h2"], "port": 8443}; {} for none.');
    return {};
  }
  const entries: [number, unknown][] = [];
  for (const [key, value] of Object.entries(raw)) {
    const n = jsonKey(key, lenient);
    if (typeof n === 'string') p.add(`svc_params.${key}`, n);
    else
      try {
        entries.push([n, kindOf(n).check(value, lenient)]);
      } catch (e) {
        if (!(e instanceof PresentationError)) throw e;
        p.add(`svc_params.${key}`, e.message);
      }
  }
  return sorted(entries);
}

/** A `key[=value]` pair of a master file (the value may be a quoted token of its own) -> [key, stored value]. */
function parseParam(tokens: Token[], i: number): { key: number; value: unknown; used: number } {
  const token = tokens[i] as Token;
  const eq = token.text.indexOf('=');
  const name = token.quoted ? '' : eq < 0 ? token.text : token.text.slice(0, eq);
  const key = keyNumber(name) ?? bad(`'${token.text}' is not a SvcParam (key or key=value, with a key such as alpn or key667)`);
  const next = tokens[i + 1];
  const quotedValue = eq === token.text.length - 1 && next?.quoted === true;
  const text = unescape(quotedValue ? (next as Token).text : eq < 0 ? '' : token.text.slice(eq + 1)).toString('latin1');
  const kind = kindOf(key);
  let value: unknown;
  if (keyName(key) === name) value = kind.check(kind.fromText(text), true);
  else {
    // A named key given as keyNNNNN: its value is the wire form (RFC 9460 2.1), as BIND reads it.
    try {
      value = kind.check(kind.fromWire(latin1(text)), true);
    } catch (e) {
      throw e instanceof WireError ? new PresentationError(`${name}: ${e.message}`) : e;
    }
  }
  return { key, value, used: quotedValue ? 2 : 1 };
}

function parseParams(tokens: Token[]): Params {
  const entries: [number, unknown][] = [];
  for (let i = 0; i < tokens.length; ) {
    const { key, value, used } = parseParam(tokens, i);
    if (entries.some(([k]) => k === key)) bad(`svc_params.${keyName(key)} is given twice`);
    entries.push([key, value]);
    i += used;
  }
  const params = sorted(entries);
  const problem = consistencyProblems(params)[0];
  if (problem) bad(problem[1]);
  return params;
}

/** The record type `type` (SVCB or HTTPS, which share everything but their names and numbers). */
export function serviceBinding(type: string, code: number, description: string): RecordType {
  return {
    type,
    code,
    description,
    apexAllowed: true,
    // Not among RFC 4034 6.2's types: the target name is signed and compared as written.
    caseSensitiveNames: true,
    // RFC 9460 4.1: the target's addresses belong in the additional section ("." is the owner, already asked for).
    additionalTarget: (data) => (data.target_name === '.' ? null : String(data.target_name)),
    v1Fields: {
      name: nameField,
      svc_priority: Type.Integer({ minimum: 0, maximum: 65535, description: '0: AliasMode (target_name is an alias of the name, no svc_params); 1 and above: ServiceMode, lower is tried first' }),
      target_name: hostField('Host name of the endpoint (AliasMode: the name this one is an alias of); "." is the record\'s own name'),
      svc_params: Type.Object(Object.fromEntries(KINDS.map((kind, key) => [keyName(key), Type.Optional(kind.schema)])), {
        additionalProperties: false,
        patternProperties: { [GENERIC.source]: generic.schema },
        default: {},
        description: 'The SvcParams, keyed by name (keyNNNNN for a key without one); {} for none, as AliasMode requires. PATCH replaces the whole object.',
      }),
      ttl: ttlField,
    },
    v1Required: ['svc_priority', 'target_name'],
    validate(rec, ctx, p) {
      const { svc_priority, target_name, svc_params = {} } = rec.data;
      const found = p.list.length;
      const params = validateParams(svc_params, ctx.transferred === true, p);
      // Judged on parameters that are each valid: one refused value would make the rest look inconsistent.
      const consistency = p.list.length === found ? consistencyProblems(params) : [];
      rec.data = { svc_priority, target_name, svc_params: params };
      validateUint(rec.data, 'svc_priority', p);
      if (target_name !== '.') validateHost(rec.data, 'target_name', type, 'target name', p);
      if (ctx.transferred) return;
      // RFC 9460 2.4.2: AliasMode records SHOULD NOT carry parameters, which clients ignore.
      if (svc_priority === 0 && Object.keys(params).length > 0) p.add('svc_params', `An ${type} record in AliasMode (svc_priority 0) takes no parameters: give svc_params as {}, or a svc_priority from 1 for ServiceMode.`);
      for (const [key, problem] of consistency) p.add(`svc_params.${key}`, problem);
    },
    encode(data, w) {
      w.u16(Number(data.svc_priority));
      w.name(String(data.target_name)); // "." is the root name
      const params = Object.entries(data.svc_params as Params).map(([name, value]) => [keyNumber(name) as number, value] as const);
      for (const [key, value] of params.sort((a, b) => a[0] - b[0])) {
        const octets = kindOf(key).toWire(value);
        if (octets.length > MAX_VALUE) throw new WireError(`the value of ${keyName(key)} is longer than ${MAX_VALUE} octets`);
        w.u16(key);
        w.u16(octets.length);
        w.bytes(octets);
      }
    },
    decode(r) {
      const svc_priority = r.u16();
      const target = r.name();
      const entries: [number, unknown][] = [];
      while (r.left > 0) {
        const key = r.u16();
        // RFC 9460 2.2: keys in strictly increasing order, so each once.
        if (entries.length > 0 && key <= (entries.at(-1) as [number, unknown])[0]) throw new WireError(`${type} parameters out of order at ${keyName(key)}`);
        entries.push([key, kindOf(key).fromWire(r.bytes(r.u16()))]);
      }
      return { svc_priority, target_name: target === '' ? '.' : target, svc_params: sorted(entries) };
    },
    present(data) {
      const params = Object.entries(data.svc_params as Params).map(([name, value]) => {
        const text = kindOf(keyNumber(name) as number).present(value);
        return text === null ? name : `${name}=${text}`;
      });
      return [Number(data.svc_priority), presentHost(data.target_name), ...params].join(' ');
    },
    parse(tokens, origin) {
      const target = parseName(tokens[1], origin, 'the target name');
      return { svc_priority: parseUint(tokens[0], 65535, 'the svc_priority'), target_name: target === '' ? '.' : target, svc_params: parseParams(tokens.slice(2)) };
    },
  };
}

export const SVCB: RecordType = serviceBinding('SVCB', 64, 'Service binding: the endpoints of a service with their parameters (RFC 9460)');
