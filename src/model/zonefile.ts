/**
 * Zone files (RFC 1035 5 master files, media type text/dns, RFC 4027), both ways, as pure functions:
 *
 * - `zoneFile(content)`: a zone as master-file text, every name absolute, one record per line, SOA first, one
 *   TTL per RRset. Each record's data is encoded by the registry (`rdataOf`) and its owner checked as a DNS
 *   name before it is written, so the file holds only what the server can answer with and AXFR sends; a record
 *   it could not serve makes the export throw instead of writing something else.
 * - `parseZoneFile(text, zone)`: a master file as records of the zone, every problem found named by its line.
 */
import { checkName, keyOf } from './labels.js';
import { emailProblem, relativeName } from './names.js';
import { checkRecord, emailOfRname, parseRdata, rdataOf, RECORD_TYPE_NAMES, recordType, recordTypeByCode, recordTypeOrThrow, SOA_TYPE, soaData, type RecordData, type Soa } from './records/index.js';
import { parseName, presentName, tokenize, type Token } from './records/presentation.js';
import { MAX_TTL, wireTtl } from './ttl.js';
import { checkAtName, dataKey, hasAddress, inZoneNameServers, nameServerWithoutAddress } from './zone-rules.js';
import { withRRsetTtls, type ZoneContent, type ZoneRecord } from './zone.js';

function line(a: ZoneRecord): string {
  const t = recordTypeOrThrow(a.type);
  checkName(a.name);
  rdataOf(t, a.data);
  return `${presentName(a.name)}\t${wireTtl(a.ttl)}\tIN\t${t.type}\t${t.present(a.data)}`;
}

/** The zone's master-file text. Throws (naming the record) when a record cannot be encoded. */
export function zoneFile(content: ZoneContent): string {
  const lines: string[] = [];
  for (const a of [content.soa, ...withRRsetTtls(content.answers.filter((x) => x.type !== SOA_TYPE.type))]) {
    try {
      lines.push(line(a));
    } catch (e) {
      throw new Error(`${a.name} ${a.type}: ${(e as Error).message}`);
    }
  }
  return lines.join('\n') + '\n';
}

/** One record read from a zone file. */
export interface FileRecord {
  /** The line the record starts on (1-based). */
  line: number;
  /** The record in canonical form (name relative to the zone, TTL rounded as every TTL; 0 when the file gave none). */
  record: RecordData;
  /** Whether the file gave the record a TTL (its own, `$TTL`, an earlier record's or the SOA's minimum). */
  ttlGiven: boolean;
}

/** The SOA a zone file gave, with the line it is on. */
export interface FileSoa {
  line: number;
  /** The SOA's TTL (rounded), or null when the file gave none. */
  ttl: number | null;
  /** The contact (RNAME) as an e-mail address. */
  email: string;
  /** The SOA's fields as the file gave them. */
  data: Soa;
}

/** One bad line: its number and what is wrong. */
export interface LineProblem {
  line: number;
  message: string;
}

export interface ParsedZoneFile {
  records: FileRecord[];
  soa: FileSoa | null;
  problems: LineProblem[];
}

/** A zone file is refused with every bad line, each named by its number. */
export class ZoneFileError extends Error {
  constructor(readonly problems: readonly LineProblem[]) {
    super(problems.map((p) => `line ${p.line}: ${p.message}`).join('\n'));
  }
}

/** At most this many problems are listed (a final one says how many more lines are bad). */
export const MAX_LINE_PROBLEMS = 1000;

const UNITS: Record<string, number> = { w: 604800, d: 86400, h: 3600, m: 60, s: 1 };

/**
 * A TTL as BIND reads it: seconds (`3600`) or numbers with units (`1h30m`, `2w`, `1D`; w d h m s, any case),
 * at most 2^32-1 seconds; null when the token is no TTL.
 */
export function parseTtl(text: string): number | null {
  let total: number;
  if (/^\d+$/.test(text)) total = Number(text);
  else if (/^(\d+[wdhms])+$/i.test(text)) {
    total = 0;
    for (const m of text.matchAll(/(\d+)([wdhms])/gi)) total += Number(m[1]) * (UNITS[(m[2] as string).toLowerCase()] as number);
  } else return null;
  return total <= 0xffffffff ? total : null;
}

/** Whether a token could only be meant as a TTL (it starts with a digit). */
const looksLikeTtl = (text: string): boolean => /^\d/.test(text);

/** The classes a master file may name; only IN (also `CLASS1`) is taken. */
const CLASS = /^(IN|CH|CS|HS|NONE|ANY|CLASS\d+)$/i;
const isIn = (text: string): boolean => /^(IN|CLASS0*1)$/i.test(text);

/**
 * A stored TTL for a TTL the file gave: the allowed set's (model/ttl.ts: rounded up; longer than the longest
 * allowed is the longest, and 0, which the service does not serve, is the shortest allowed).
 */
function fileTtl(seconds: number): number {
  return Math.min(Math.max(seconds, 1), MAX_TTL);
}

/** One entry of a master file: the text of one record or directive (several lines inside parentheses). */
interface Entry {
  line: number;
  text: string;
  /** The entry starts with a blank: its owner is the previous record's. */
  blankStart: boolean;
  /** A problem found while splitting (an unclosed quote or parenthesis). */
  error?: string;
}

/**
 * Splits the text into entries: a line ends an entry unless it is inside parentheses. Quotes, `\X` escapes and
 * comments are followed so that a `(`, `)` or `;` inside them does not count. A quoted string ends on its line.
 */
function entries(text: string): Entry[] {
  const out: Entry[] = [];
  let start = 0;
  let startLine = 1;
  let line = 1;
  let depth = 0;
  let openedAt = 0;
  let error: string | undefined;
  const push = (end: number) => {
    const t = text.slice(start, end);
    out.push({ line: startLine, text: t, blankStart: t.startsWith(' ') || t.startsWith('\t'), ...(error ? { error } : {}) });
    error = undefined;
  };
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === '\\') {
      if (text[i + 1] === '\n') line++;
      i += 2;
    } else if (c === ';') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '"') {
      for (i++; i < text.length && text[i] !== '"' && text[i] !== '\n'; i++) if (text[i] === '\\' && text[i + 1] !== '\n') i++;
      if (text[i] !== '"') error ??= 'a quoted string is not closed on its line';
      else i++;
    } else if (c === '(') {
      if (depth++ === 0) openedAt = line;
      i++;
    } else if (c === ')') {
      depth--;
      i++;
    } else if (c === '\n') {
      line++;
      i++;
      if (depth <= 0) {
        if (depth < 0) error ??= 'a ")" without its "("';
        push(i - 1);
        depth = 0;
        start = i;
        startLine = line;
      }
    } else i++;
  }
  if (depth > 0) error ??= `the "(" on line ${openedAt} is not closed`;
  else if (depth < 0) error ??= 'a ")" without its "("';
  push(text.length);
  return out;
}

/** What makes a type name in a file: the registry's mnemonic, or RFC 3597's TYPEnnn. */
function typeOf(text: string) {
  const m = /^TYPE(\d+)$/i.exec(text);
  return m ? recordTypeByCode(Number(m[1])) : recordType(text);
}

const present = (abs: string): string => (abs === '' ? '.' : presentName(abs));
/** A name in the model's form (absolute, no trailing dot) marked absolute for relativeName. */
const dotted = (abs: string): string => `${abs}.`;

/** What reading a file has found so far, and what its directives and earlier records set. */
interface FileState {
  /** The zone (lower case, no trailing dot). */
  readonly zone: string;
  origin: string;
  /** The `$TTL` (or the SOA's minimum standing for it), null before any. */
  defaultTtl: number | null;
  /** The last TTL a record gave. */
  lastTtl: number | null;
  /** The owner of the previous record, which a line starting with a blank repeats. */
  owner: string | null;
  soa: FileSoa | null;
  readonly records: FileRecord[];
}

/**
 * Reads a master file (RFC 1035 5) for `zone` (lower case, no trailing dot): `$ORIGIN`, `$TTL`, `@`, relative
 * names, the owner carried from the previous record (a line starting with a blank), parentheses, comments,
 * quoted strings with `\DDD` and `\X`, TTLs with units, the class IN or none (before or after the TTL), every
 * hosted type's presentation form and RFC 3597's `\#`. Refused, line by line: `$INCLUDE` and other directives,
 * classes other than IN, names outside the zone, types not hosted (SOA aside: at most one, at the apex), and
 * records the registry's rules refuse. Records repeated in the file are kept once (as BIND does); the zone
 * rules across records are checked by `checkFileRecords`.
 */
export function parseZoneFile(text: string, zone: string): ParsedZoneFile {
  const state: FileState = { zone, origin: zone, defaultTtl: null, lastTtl: null, owner: null, soa: null, records: [] };
  const problems: LineProblem[] = [];
  for (const entry of entries(text.replace(/\r\n?/g, '\n'))) {
    try {
      if (entry.error) throw new Error(entry.error);
      readEntry(entry, state);
    } catch (e) {
      problems.push({ line: entry.line, message: e instanceof Error ? e.message : String(e) });
    }
  }
  return { records: state.records, soa: state.soa, problems };
}

/** One entry of the file: a directive or a record, taken into `state`. Throws naming what is wrong. */
function readEntry(entry: Entry, state: FileState): void {
  const tokens = tokenize(entry.text);
  const first = tokens[0];
  if (!first) return;
  if (!entry.blankStart && !first.quoted && first.text.startsWith('$')) return directive(tokens, state);
  const head = recordHead(entry, tokens, state);
  const typeToken = tokens[head.next];
  if (!typeToken || typeToken.quoted) throw new Error('the record has no type');
  const t = typeOf(typeToken.text);
  if (!t) throw new Error(`the type ${typeToken.text.toUpperCase()} is not hosted here; the types taken are ${hostedList()}`);
  const rel = relativeName(dotted(head.name), state.zone);
  if (rel === null) throw new Error(`the name ${present(head.name)} is outside the zone ${state.zone}.`);
  const rdata = tokens.slice(head.next + 1);
  const data = parseRdata(t, t === SOA_TYPE ? withTimerUnits(rdata) : rdata, state.origin);
  if (t === SOA_TYPE) return readSoa(entry.line, head, rel, soaData({ data }), state);
  if (t.hosted === false) throw new Error(`the type ${t.type} is not hosted here: the service makes it (DNSSEC records are made by signing the zone)`);
  if (head.ttl !== null) state.lastTtl = head.ttl;
  const given = head.ttl ?? state.defaultTtl ?? state.lastTtl;
  const rec: RecordData = { type: t.type, name: dotted(head.name), ttl: given === null ? 0 : fileTtl(given), data };
  const p = checkRecord(rec, { zone: state.zone });
  if (!p.empty) throw new Error(p.list.map((x) => x.message).join(' '));
  state.records.push({ line: entry.line, record: rec, ttlGiven: given !== null });
}

/** `$ORIGIN` and `$TTL`; every other directive is refused. */
function directive(tokens: Token[], state: FileState): void {
  const first = tokens[0] as Token;
  const name = first.text.toUpperCase();
  if (name === '$ORIGIN') {
    if (tokens.length !== 2) throw new Error('$ORIGIN takes one name');
    state.origin = parseName(tokens[1], state.origin, 'the $ORIGIN name');
  } else if (name === '$TTL') {
    const ttl = tokens.length === 2 ? parseTtl((tokens[1] as Token).text) : null;
    if (ttl === null) throw new Error('$TTL takes one TTL (seconds, or with units such as 1h30m)');
    state.defaultTtl = ttl;
  } else if (name === '$INCLUDE') throw new Error('$INCLUDE is not taken: send the whole zone in one file');
  else throw new Error(`the directive ${first.text} is not taken (only $ORIGIN and $TTL are)`);
}

/** A record's owner (absolute), its own TTL if it gives one, and the index of its type token. */
interface RecordHead {
  name: string;
  ttl: number | null;
  next: number;
}

/** Reads a record's owner, then its TTL and class in either order (each optional; only the class IN). */
function recordHead(entry: Entry, tokens: Token[], state: FileState): RecordHead {
  let i = 0;
  let name: string;
  if (entry.blankStart) {
    if (state.owner === null) throw new Error('the line starts with a blank, but no earlier record gives the owner name to repeat');
    name = state.owner;
  } else {
    name = parseName(tokens[0], state.origin, 'the owner name');
    i = 1;
  }
  state.owner = name;
  let ttl: number | null = null;
  let klass: string | null = null;
  for (let k = 0; k < 2; k++) {
    const t = tokens[i];
    if (!t || t.quoted) break;
    if (ttl === null && looksLikeTtl(t.text)) {
      ttl = parseTtl(t.text);
      if (ttl === null) throw new Error(`'${t.text}' is not a TTL (seconds, or with units such as 1h30m, at most 4294967295 seconds)`);
      i++;
    } else if (klass === null && CLASS.test(t.text)) {
      klass = t.text;
      i++;
    } else break;
  }
  if (klass !== null && !isIn(klass)) throw new Error(`the class ${klass.toUpperCase()} is not taken: only IN (or no class)`);
  return { name, ttl, next: i };
}

/** The file's SOA (`rel`: its owner relative to the zone): checked, and its TTL and minimum taken as BIND does. */
function readSoa(line: number, head: RecordHead, rel: string, soa: Soa, state: FileState): void {
  if (rel !== '') throw new Error(`an SOA record belongs at the zone's apex (${state.zone}.), not at ${present(head.name)}`);
  if (state.soa) throw new Error(`a second SOA record (the first is on line ${state.soa.line})`);
  const email = emailOfRname(soa.rname);
  const emailBad = emailProblem(email);
  if (emailBad) throw new Error(`the SOA's contact ${present(soa.rname)} is the e-mail address '${email}', which ${emailBad}`);
  state.soa = { line, ttl: head.ttl ?? state.defaultTtl ?? state.lastTtl, email, data: soa };
  if (head.ttl !== null) state.lastTtl = head.ttl;
  // As BIND: an SOA without a TTL, where no $TTL came before, takes its minimum, which then serves as
  // the $TTL of the records after it; with a TTL of its own, later records without one take the last
  // TTL given (RFC 1035 5.1).
  if (state.soa.ttl === null) state.soa.ttl = state.defaultTtl = soa.minimum;
}

/** The SOA's rdata with units in its timers (refresh, retry, expire, minimum) made seconds: BIND takes them as in TTLs. */
function withTimerUnits(rdata: Token[]): Token[] {
  if (rdata[0]?.text === '\\#' && !rdata[0].quoted) return rdata;
  return rdata.map((tok, k) => {
    const seconds = k >= 3 && k < 7 && !tok.quoted ? parseTtl(tok.text) : null;
    return seconds === null ? tok : { text: String(seconds), quoted: false };
  });
}

const hostedList = (): string => [SOA_TYPE.type, ...RECORD_TYPE_NAMES].join(', ');

/** Whether `rec` is an apex NS record naming one of the service's own name servers (`nameservers`, as keys). */
function isServiceNameServer(rec: RecordData, nameservers: ReadonlySet<string>): boolean {
  const t = recordType(rec.type);
  return !!t?.nameServer && rec.name === '' && nameservers.has(keyOf(t.additionalTarget?.(rec.data) ?? ''));
}

/**
 * A file's records as the zone's records: the apex NS records naming the service's own name servers
 * (`nameservers`) are the service's and dropped, a record the file repeats is kept once, and the zone rules
 * (model/zone-rules.ts: a CNAME alone, an RRset that fits a message, DS at a delegation, an apex name server
 * inside the zone with an address) are checked on the result, each broken rule named by a line.
 */
export function checkFileRecords(records: readonly FileRecord[], zone: string, nameservers: readonly string[]): { records: FileRecord[]; problems: LineProblem[] } {
  const service = new Set(nameservers.map(keyOf));
  const seen = new Set<string>();
  const kept: FileRecord[] = [];
  for (const r of records) {
    if (isServiceNameServer(r.record, service)) continue;
    const key = dataKey(r.record);
    if (seen.has(key)) continue;
    seen.add(key);
    kept.push(r);
  }
  const byName = new Map<string, FileRecord[]>();
  for (const r of kept) {
    const k = keyOf(r.record.name);
    const at = byName.get(k);
    if (at) at.push(r);
    else byName.set(k, [r]);
  }
  const problems: LineProblem[] = [];
  for (const at of byName.values()) {
    const recs = at.map((r) => r.record);
    const error = checkAtName(recs, zone);
    if (!error) continue;
    if (error.field === null) {
      // A type without the type it needs at its name (DS without NS): named at its first record.
      const needs = at.find((r) => recordType(r.record.type)?.requires) ?? (at[0] as FileRecord);
      problems.push({ line: needs.line, message: error.message });
      continue;
    }
    // The first record whose addition breaks a rule: the shortest failing prefix (a broken prefix stays broken).
    let lo = 1;
    let hi = recs.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const e = checkAtName(recs.slice(0, mid), zone);
      if (e && e.field !== null) hi = mid;
      else lo = mid + 1;
    }
    const failing = at[lo - 1] as FileRecord;
    problems.push({ line: failing.line, message: (checkAtName(recs.slice(0, lo), zone) ?? error).message });
  }
  const apex = byName.get(keyOf('')) ?? [];
  for (const { name, host } of inZoneNameServers(apex.map((r) => r.record), zone)) {
    if (hasAddress((byName.get(keyOf(name)) ?? []).map((r) => r.record))) continue;
    const ns = apex.find((r) => recordType(r.record.type)?.nameServer && keyOf(recordType(r.record.type)?.additionalTarget?.(r.record.data) ?? '') === keyOf(host));
    problems.push({ line: ns?.line ?? 0, message: nameServerWithoutAddress(host, zone, null).message });
  }
  problems.sort((a, b) => a.line - b.line);
  return { records: kept, problems };
}
