/**
 * The contract every record type module fulfils. A type module is the single source of truth for its
 * fields, validation, wire format, master-file text (both ways), interface A mapping and interface B schema.
 */
import type { TProperties } from '@sinclair/typebox';
import type { Problems } from '../errors.js';
import type { Steering } from '../steering.js';
import type { Token } from './presentation.js';

/** A type's own fields, JSON-safe (numbers, strings, booleans, arrays and objects of them). */
export type RecordFields = Record<string, unknown>;

/** A record in canonical form, as stored. */
export interface RecordData {
  /** Canonical upper-case type, e.g. "MX". */
  type: string;
  /** Owner name relative to the zone; "" is the apex. Stored as given (case kept). */
  name: string;
  /** Seconds; 0 means the zone's default TTL. */
  ttl: number;
  /** The type's own fields, named as interface B names them; host names absolute, without the trailing dot. */
  data: RecordFields;
  /**
   * Who the record is served to and when (model/steering.ts); absent or null for none. On a write, absent
   * keeps what the record had (doors that know nothing of steering leave it untouched), null removes it.
   */
  steering?: Steering | null;
}

export interface StoredRecord extends RecordData {
  id: number;
  domainId: number;
}

/** Interface A's columns, which the real API overloaded across types. */
export interface V3Columns {
  name: string;
  target: string;
  priority: number;
  weight: number;
  port: number;
  protocol: string;
  ttl: number;
  tag: string;
}

/** Values interface A fills in when an argument is not given (Linode's api.spec defaults). */
export const V3_DEFAULTS: Omit<V3Columns, 'name' | 'ttl'> & Pick<V3Columns, 'name' | 'ttl'> = {
  priority: 10,
  weight: 5,
  port: 80,
  protocol: '',
  ttl: 0,
  tag: '',
  name: '',
  target: '',
};

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

/** Writes rdata. Names are absolute, without the trailing dot (`\.` is a dot inside a label). */
export interface RdataWriter {
  u8(n: number): void;
  u16(n: number): void;
  u32(n: number): void;
  bytes(b: Buffer): void;
  /**
   * A domain name. `compress`: the type is one of RFC 1035's, whose names a response may compress
   * (RFC 3597 4); newer types' names are always written in full.
   */
  name(name: string, compress?: boolean): void;
}

/** Reads rdata; every read throws when it would run past the rdata. */
export interface RdataReader {
  /** Octets of rdata not read yet. */
  readonly left: number;
  u8(): number;
  u16(): number;
  u32(): number;
  bytes(n: number): Buffer;
  /** A domain name (pointers followed), in the form RdataWriter.name takes; "" is the root. */
  name(): string;
}

/** Interface A's mapping of a type the real Linode API had. */
export interface V3Mapping {
  /**
   * Interface A's columns (after its defaults) to a canonical record; `cols.name` is as the client sent it,
   * `ctx.zone` the record's zone. Problems go into `p`. On update, `previous` is the stored record the
   * given arguments were laid over (its columns are what `toV3` shows).
   */
  fromV3(cols: V3Columns, ctx: RecordContext, p: Problems, previous?: RecordData): RecordData;
  /** The columns domain.resource.list shows for a record. */
  toV3(rec: RecordData): V3Columns;
}

/** A record as Linode's API v4 shows it (the v4 door): interface A's columns, and the fields v4 adds, null where the type has none. */
export interface V4Fields extends Omit<V3Columns, 'protocol' | 'tag'> {
  /** SRV's service, without its `_`. */
  service: string | null;
  protocol: string | null;
  tag: string | null;
}

/** What a v4 request gives a type's mapping: interface A's columns (with its defaults), and SRV's service ("" when not given). */
export interface V4Columns extends V3Columns {
  service: string;
}

/** Linode API v4's mapping of a type that API has (the v4 door). */
export interface V4Mapping {
  /** As V3Mapping.fromV3, from a v4 body's fields. */
  fromV4(cols: V4Columns, ctx: RecordContext, p: Problems, previous?: RecordData): RecordData;
  /** The fields a v4 answer shows for a record. */
  toV4(rec: RecordData): V4Fields;
}

/**
 * The PowerDNS API door's mapping, for a type whose content PowerDNS presents otherwise than our master-file
 * form (`present`): its content is the rdata in presentation format, names absolute, and PowerDNS refuses a
 * content that is not the form it would present itself (compared without regard to case).
 */
export interface PdnsMapping {
  /** The content PowerDNS shows for the data, when it is not `present`'s. */
  present?(data: RecordFields): string;
  /** PowerDNS takes the content in any form it parses, not only its own (AAAA: any way of writing the address). */
  anyForm?: true;
}

export interface RecordType {
  /** Canonical upper-case mnemonic. */
  readonly type: string;
  /** The type's number on the wire. */
  readonly code: number;
  /** One-line description for docs and api.spec. */
  readonly description: string;
  /**
   * False for the types the service makes and customers never create: SOA (part of every zone) and DNSSEC's
   * (DNSKEY, CDNSKEY, CDS, RRSIG, NSEC, NSEC3, NSEC3PARAM: made by the signer, carried by mirrors).
   */
  readonly hosted?: false;
  /**
   * Made by DNSSEC signing (DNSKEY, CDNSKEY, CDS, RRSIG, NSEC, NSEC3, NSEC3PARAM; all `hosted: false`): never
   * written by customers, through any interface; zone mirrors carry them from their masters as received
   * (`checkRecord` takes them only with `ctx.transferred`), and may hold them beside a CNAME (RFC 4035 2.5).
   */
  readonly dnssec?: true;
  /** A CNAME-like type that cannot share its owner name with any other data. */
  readonly exclusive?: boolean;
  /**
   * Stands for its target's addresses (ALIAS): A and AAAA queries at its name are answered with them, resolved
   * when served, and zone transfers carry them in its place. No address record (`address`) or CNAME may share
   * its name, and a name holds one.
   */
  readonly addressAlias?: true;
  /** An address of its owner name (A, AAAA): what a host name in NS, MX or SRV data resolves to. */
  readonly address?: boolean;
  /**
   * At the apex, names the zone's own name servers (NS). Such a host inside the zone must have an
   * address record there: nobody could reach it otherwise, and BIND refuses to load the zone.
   */
  readonly nameServer?: boolean;
  /** A type whose records are only allowed where the same name has records of this other type (DS: NS). */
  readonly requires?: string;
  /**
   * Its rdata names keep their case in canonical form: RFC 4034 6.2 lower-cases the names of the types it
   * lists (RFC 1035's with names, RRSIG, SRV, NAPTR, ...), and only those; a newer type's names (SVCB, HTTPS)
   * are compared and signed as written, and NSEC's next name too (RFC 6840 5.1).
   */
  readonly caseSensitiveNames?: true;
  /**
   * The records of this type at one name that share a TTL (RFC 2181 5.2), when not all of them do: RRSIG's
   * by the type they cover, as each has the TTL of the RRset it signs (RFC 4034 3).
   */
  ttlGroup?(data: RecordFields): string;
  /** Allowed at the zone apex (CNAME is not). */
  readonly apexAllowed: boolean;
  /** Host names this record points at, for additional-section processing (MX, SRV, NS targets). */
  additionalTarget?(data: RecordFields): string | null;
  /** The name an alias (CNAME) points at: answers follow it. */
  aliasTarget?(data: RecordFields): string;

  /** Interface A's mapping; absent for types the real API never had, which interface A does not show. */
  readonly v3?: V3Mapping;
  /** Linode API v4's mapping (the v4 door); absent for types that API does not have, which the door does not show. */
  readonly v4?: V4Mapping;

  /** The PowerDNS door's mapping, where the type's content is not simply `present`'s (PowerDNS: lower-case hex). */
  readonly pdns?: PdnsMapping;

  /** Interface B: the type's own fields (without `id`), with formats and ranges; `name` and `ttl` included. */
  readonly v1Fields: TProperties;
  /** Names of the v1 fields a create must carry. */
  readonly v1Required: readonly string[];
  /** Interface B body -> canonical record, when the body is not simply `name`, `ttl` and the data fields. */
  fromV1?(body: Record<string, unknown>): RecordData;
  /** Canonical record -> interface B body (without `id`), when it is not `name`, the data fields and `ttl`. */
  toV1?(rec: RecordData): Record<string, unknown>;

  /** Checks a canonical record's data (normalising it in place); names problems by data field. */
  validate(rec: RecordData, ctx: RecordContext, p: Problems): void;

  /** The rdata on the wire. Throws on data that cannot be written. */
  encode(data: RecordFields, w: RdataWriter): void;
  /** Rdata from the wire (it must take all of it) -> the type's fields. Throws on malformed rdata. */
  decode(r: RdataReader): RecordFields;
  /** The rdata in master-file form (RFC 1035 5.1), names absolute with their dot. */
  present(data: RecordFields): string;
  /**
   * The rdata of a master-file line -> the type's fields; relative names are completed with `origin`.
   * Throws PresentationError naming what is wrong.
   */
  parse(tokens: Token[], origin: string): RecordFields;
}
