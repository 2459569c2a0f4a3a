/**
 * The contract every record type module fulfils. A type module is the single source of truth for
 * its fields, validation, defaults, wire encoding, interface A argument mapping and interface B schema.
 */
import type { TObject, TProperties } from '@sinclair/typebox';
import type { Problems } from '../errors.js';

/**
 * A record in canonical form. The columns are those of interface A (which overloads them across
 * types); each type module says which ones it uses and what they mean.
 */
export interface RecordData {
  /** Canonical upper-case type, e.g. "MX". */
  type: string;
  /** Owner name relative to the zone; "" is the apex. Stored as given (case kept). */
  name: string;
  /** Address, host name or text, depending on the type. */
  target: string;
  priority: number;
  weight: number;
  port: number;
  protocol: string;
  /** Seconds; 0 means the zone's default TTL. */
  ttl: number;
  /** CAA-style tag; "" for types that do not use it. */
  tag: string;
}

export interface StoredRecord extends RecordData {
  id: number;
  domainId: number;
}

/** Values interface A fills in when an argument is not given (Linode's api.spec defaults). */
export const V3_DEFAULTS = { priority: 10, weight: 5, port: 80, protocol: '', ttl: 0, tag: '', name: '', target: '' } as const;

/** What validation may need to know about the request and the zone. */
export interface RecordContext {
  /** Zone name, lower case, no trailing dot. */
  zone: string;
  /** Address of the HTTP client, for the `[remote_addr]` token. */
  remoteAddr?: string;
  /**
   * The record came from a master by zone transfer (a zone mirror): a type then checks only what DNS
   * requires, not what the APIs let customers create (CAA flags and tags beyond Linode's).
   */
  transferred?: boolean;
}

/** Wire form in dns-packet's shape (the `data` of an answer). */
export type WireData = unknown;

export interface RecordType {
  /** Canonical upper-case mnemonic. */
  readonly type: string;
  /** One-line description for docs and api.spec. */
  readonly description: string;
  /** A CNAME-like type that cannot share its owner name with any other data. */
  readonly exclusive?: boolean;
  /** An address of its owner name (A, AAAA): what a host name in NS, MX or SRV data resolves to. */
  readonly address?: boolean;
  /**
   * At the apex, names the zone's own name servers (NS). Such a host inside the zone must have an
   * address record there: nobody could reach it otherwise, and BIND refuses to load the zone.
   */
  readonly nameServer?: boolean;
  /** The target is text whose letter case matters (TXT), not a host name or address compared without case. */
  readonly caseSensitiveTarget?: boolean;
  /** Allowed at the zone apex (CNAME is not). */
  readonly apexAllowed: boolean;
  /** Host names this record points at, for additional-section processing (MX, SRV, NS targets). */
  additionalTarget?(rec: RecordData): string | null;

  /**
   * Interface A: adjusts the overloaded arguments after defaults are applied (e.g. SRV folds
   * Protocol into Name, A substitutes `[remote_addr]`). `rec.name` is still as the client sent it;
   * `ctx.zone` is the record's zone. Problems go into `p`. On update, `previous` is the stored record
   * the given arguments were laid over.
   */
  fromV3(rec: RecordData, ctx: RecordContext, p: Problems, previous?: RecordData): RecordData;

  /** Interface B: the type's own fields (without `id`), with formats and ranges. */
  readonly v1Fields: TProperties;
  /** Names of the v1 fields a create must carry. */
  readonly v1Required: readonly string[];
  /** Interface B body -> canonical record (unused columns take interface A's defaults). */
  fromV1(body: Record<string, unknown>, ctx: RecordContext): RecordData;
  /** Canonical record -> interface B body (without `id`). */
  toV1(rec: RecordData): Record<string, unknown>;

  /** Checks a canonical record; names problems by canonical field name. */
  validate(rec: RecordData, ctx: RecordContext, p: Problems): void;

  /** Canonical -> dns-packet answer `data`. `zone` makes relative names absolute. */
  toWire(rec: RecordData, zone: string): WireData;
  /**
   * The wire data as master-file fields, for the zone-file export: numbers and strings (plain tokens) as
   * they are, Buffers as quoted character-strings. Types without it that the export has no form of its
   * own for are written in RFC 3597's generic form.
   */
  zoneFileFields?(data: WireData): (number | string | Buffer)[];
  /** dns-packet answer `data` -> canonical fields (for zone mirrors pulled by AXFR); `name` is the relative owner. */
  fromWire(data: WireData, zone: string, name: string): Pick<RecordData, 'target' | 'priority' | 'weight' | 'port' | 'protocol' | 'tag'>;
}

/** A v1 schema for one record type, built from its fields. */
export type RecordSchema = TObject;
