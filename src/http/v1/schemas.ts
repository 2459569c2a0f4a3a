/**
 * Interface B's schemas (TypeBox). Request validation, response serialisation and the OpenAPI
 * document all use these; record schemas are built from the record-type registry.
 */
import { Type, type TObject, type TProperties, type TSchema } from '@sinclair/typebox';
import { MAX_ADDRESS_LIST } from '../../model/domain.js';
import { MAX_SCOPE_DOMAINS } from '../../model/key-scope.js';
import { MAX_SCOPE_ITEMS } from '../../model/name-scope.js';
import { MAX_NAME_LENGTH } from '../../model/names.js';
import { RECORD_TYPES, type RecordType } from '../../model/records/index.js';
import { MAX_TTL } from '../../model/ttl.js';
import { MIN_SECRET_BYTES, SECRET_BYTES, TSIG_ALGORITHM_NAMES, DEFAULT_TSIG_ALGORITHM } from '../../model/tsig-key.js';
import { MAX_KEY_HOURS, MAX_LABEL } from '../../services/accounts.js';
import { DEFAULT_DNSSEC_ALGORITHM, DNSSEC_ALGORITHMS, DNSSEC_KEY_STATES, type DnssecAlgorithm } from '../../model/dnssec.js';

export const MAX_PAGE = 500;
export const DEFAULT_PAGE = 100;

export const Problem = Type.Object(
  {
    type: Type.String({ description: 'A URI reference naming the kind of problem; "about:blank" when the HTTP status says it all' }),
    title: Type.String({ description: 'Short summary of the kind of problem' }),
    status: Type.Integer({ description: 'The HTTP status code' }),
    detail: Type.String({ description: 'Human-readable explanation of this occurrence' }),
    errors: Type.Array(
      Type.Object(
        {
          field: Type.Union([Type.String(), Type.Null()], { description: 'The input field at fault (dotted path, e.g. "axfr.1"), or null when the problem is not about one field' }),
          reason: Type.String({ description: 'What is wrong with it' }),
        },
        { additionalProperties: false },
      ),
      { description: 'Every problem found, not just the first' },
    ),
  },
  { additionalProperties: false, title: 'Problem', description: 'An RFC 9457 problem document (media type application/problem+json)' },
);

const idField = Type.Integer({ minimum: 1, description: 'Identifier, shared with interface A (DomainID, ResourceID)' });
const ipAddress = Type.Union([Type.String({ format: 'ipv4' }), Type.String({ format: 'ipv6' })], { description: 'an IPv4 or IPv6 address' });
const addressList = (what: string) =>
  Type.Array(ipAddress, { uniqueItems: true, maxItems: MAX_ADDRESS_LIST, description: `${what}; unique IPv4 or IPv6 addresses` });
const status = Type.Union([Type.Literal('active'), Type.Literal('inactive')], { description: '"active" or "inactive"' });
/** The status mapping, documented where the schemas are published. */
const STATUS_NOTE =
  'status maps to interface A\'s STATUS: 0 (disabled) is "inactive"; 1 (active) and 2 (edit mode, served like active) are "active". Setting "active" on a domain in edit mode keeps it in edit mode. An inactive domain is not served by the DNS server.';
const defaultTtl = Type.Integer({
  minimum: 0,
  maximum: MAX_TTL,
  description:
    'Default TTL of the domain\'s records, in seconds: the same value as interface A\'s TTL_SEC. 0 (the default) means the server default of 86400. Other values are rounded up to 300, 3600, 7200, 14400, 28800, 57600, 86400, 172800, 345600, 604800, 1209600 or 2419200.',
});

const domainFields = {
  domain: Type.String({ format: 'hostname', maxLength: MAX_NAME_LENGTH + 1, description: 'Name of the domain; a trailing dot is dropped and letters are lower-cased' }),
  soa: Type.String({ format: 'email', maxLength: 254, description: 'Start-of-authority e-mail address' }),
  default_ttl: defaultTtl,
  status,
  axfr: Type.Union([addressList('Addresses allowed to transfer the zone (AXFR/IXFR)'), Type.Literal('')], {
    description: 'an array of unique IPv4 or IPv6 addresses allowed to transfer the zone, or "" for none (stored as [])',
  }),
};

export const DomainCreate = Type.Object(
  {
    domain: domainFields.domain,
    soa: domainFields.soa,
    default_ttl: Type.Optional(domainFields.default_ttl),
    status: Type.Optional(domainFields.status),
    axfr: Type.Optional(domainFields.axfr),
  },
  { additionalProperties: false, title: 'DomainCreate', description: 'A new domain. Omitted fields take these defaults: default_ttl 0, status "active", axfr [].' },
);
/** PUT: the whole representation; omitted optional fields are reset to their defaults. */
export const DomainReplace = Type.Object(DomainCreate.properties, {
  additionalProperties: false,
  title: 'DomainReplace',
  description: 'The full domain. Omitted optional fields are reset to the create defaults.',
});
export const DomainPatch = Type.Partial(Type.Object(DomainCreate.properties), {
  additionalProperties: false,
  title: 'DomainPatch',
  description: 'Any subset of the domain fields; the others keep their values.',
});
export const Domain = Type.Object(
  {
    id: idField,
    domain: domainFields.domain,
    soa: domainFields.soa,
    default_ttl: domainFields.default_ttl,
    status: domainFields.status,
    axfr: addressList('Addresses allowed to transfer the zone (AXFR/IXFR)'),
  },
  { additionalProperties: false, title: 'Domain', description: `A domain (master zone). ${STATUS_NOTE}` },
);

const tsigAlgorithm = Type.Union(
  TSIG_ALGORITHM_NAMES.map((a) => Type.Literal(a)),
  { description: `one of ${TSIG_ALGORITHM_NAMES.join(', ')} (hmac-sha1 only for old clients)` },
);
const tsigName = (what: string) =>
  Type.String({
    minLength: 1,
    maxLength: MAX_NAME_LENGTH + 1,
    description: `${what}: a DNS name (letters, digits, hyphens, underscores), accepted with or without the trailing dot and shown absolute with it`,
  });
const tsigSecret = Type.String({
  maxLength: 1024,
  description: `The shared secret, base64, at least ${MIN_SECRET_BYTES} bytes once decoded`,
});
/** A zone mirror's key for its masters, as sent (the secret is write-only) and as shown. */
const masterTsigIn = Type.Union(
  [
    Type.Object(
      { name: tsigName('The key\'s name as the masters know it'), algorithm: tsigAlgorithm, secret: tsigSecret },
      { additionalProperties: false },
    ),
    Type.Null(),
  ],
  { description: 'the masters\' TSIG key {"name", "algorithm", "secret"}, which signs SOA queries, transfers and their NOTIFY; null for none. The secret is write-only.' },
);
const masterTsigOut = Type.Union(
  [Type.Object({ name: tsigName('The key\'s name'), algorithm: tsigAlgorithm }, { additionalProperties: false }), Type.Null()],
  { description: 'The masters\' TSIG key by name and algorithm (its secret is never shown), or null' },
);

const masters = Type.Array(ipAddress, { minItems: 1, uniqueItems: true, maxItems: MAX_ADDRESS_LIST, description: 'The primary servers the zone is transferred from' });
const mirrorFields = {
  domain: domainFields.domain,
  masters,
  status: domainFields.status,
  axfr: Type.Union([addressList('Addresses allowed to transfer the mirrored zone from this server'), Type.Literal('')], {
    description: 'an array of unique IPv4 or IPv6 addresses allowed to transfer the mirrored zone from this server, or "" for none',
  }),
};
export const MirrorCreate = Type.Object(
  {
    domain: mirrorFields.domain,
    masters: mirrorFields.masters,
    status: Type.Optional(mirrorFields.status),
    axfr: Type.Optional(mirrorFields.axfr),
    tsig: Type.Optional(masterTsigIn),
  },
  { additionalProperties: false, title: 'ZoneMirrorCreate', description: 'A new zone mirror (secondary zone). Defaults: status "active", axfr [], tsig null.' },
);
export const MirrorReplace = Type.Object(MirrorCreate.properties, { additionalProperties: false, title: 'ZoneMirrorReplace' });
export const MirrorPatch = Type.Partial(Type.Object(MirrorCreate.properties), { additionalProperties: false, title: 'ZoneMirrorPatch' });
const timestamp = (description: string) => Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description });
export const Mirror = Type.Object(
  {
    id: idField,
    domain: mirrorFields.domain,
    masters: mirrorFields.masters,
    status: mirrorFields.status,
    axfr: addressList('Addresses allowed to transfer the mirrored zone from this server'),
    tsig: masterTsigOut,
    transfer: Type.Object(
      {
        serial: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'Serial of the copy being served; null before the first successful transfer' }),
        last_success: timestamp('When the last successful transfer finished, or null'),
        last_attempt: timestamp('When the last transfer was attempted, or null'),
        last_error: Type.Union([Type.String(), Type.Null()], { description: 'Why the last attempt failed; null when it succeeded or none was made' }),
      },
      { additionalProperties: false, description: 'Read-only transfer state, kept by the server' },
    ),
  },
  { additionalProperties: false, title: 'ZoneMirror', description: `A zone mirror (secondary zone, interface A Type=slave): the server transfers the zone from its masters and serves it. Its records cannot be edited. ${STATUS_NOTE}` },
);

/** Names and types a scope may list: a TSIG key's update scope, an API key's records scope. */
const scopeLists = {
  names: Type.Optional(
    Type.Array(Type.String({ maxLength: MAX_NAME_LENGTH + 1 }), {
      maxItems: MAX_SCOPE_ITEMS,
      description: 'Owner names relative to the domain: "@" is the apex, "*.x" is *.x and every name below x. Left out: every name.',
    }),
  ),
  types: Type.Optional(Type.Array(Type.String({ maxLength: 16 }), { maxItems: MAX_SCOPE_ITEMS, description: 'Record types, e.g. "TXT". Left out: every type.' })),
};

/** An API key's scope (model/key-scope.ts); every field optional, an absent one does not restrict. */
export const KeyScope = Type.Object(
  {
    domains: Type.Optional(
      Type.Array(Type.Integer({ minimum: 1 }), { minItems: 1, maxItems: MAX_SCOPE_DOMAINS, description: 'Ids of the only domains and zone mirrors the key sees; it cannot create domains' }),
    ),
    read_only: Type.Optional(Type.Boolean({ description: 'true: no writes at all' })),
    records: Type.Optional(
      Type.Object(scopeLists, {
        additionalProperties: false,
        description: 'Record writes only at these names and of these types; domain settings, DNSSEC, TSIG keys, mirrors and API keys are then off limits',
      }),
    ),
    subnets: Type.Optional(
      Type.Array(Type.String({ maxLength: 64 }), {
        minItems: 1,
        maxItems: MAX_SCOPE_ITEMS,
        description: 'Networks (CIDR, e.g. 192.0.2.0/24, 2001:db8::/32) the key works from; from anywhere else it fails as a wrong key does',
      }),
    ),
  },
  { additionalProperties: false, title: 'KeyScope' },
);

export const KeyCreate = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 64 }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
    label: Type.Optional(Type.String({ maxLength: MAX_LABEL, description: 'A name to recognise the key by; default ""' })),
    expires: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_KEY_HOURS, description: 'Hours until the key expires; 0 means never. Default 168 (one week).' })),
    scope: Type.Optional({
      ...KeyScope,
      description:
        'What the key may do; left out: everything the account may (or, with an API key in Authorization, that key\'s scope). It cannot be widened later.',
    }),
  },
  { additionalProperties: false, title: 'KeyCreate' },
);
const keyFields = {
  id: Type.Integer({ minimum: 1 }),
  label: Type.String(),
  created: Type.String({ format: 'date-time' }),
  expires: timestamp('When the key stops working; null for never'),
  prefix: Type.String({ description: 'The first characters of the key, to recognise it by' }),
  scope: KeyScope,
};
export const ApiKey = Type.Object(keyFields, { additionalProperties: false, title: 'ApiKey' });
export const NewApiKey = Type.Object(
  { ...keyFields, key: Type.String({ description: 'The key itself. It is shown only this once; the server keeps only a hash.' }) },
  { additionalProperties: false, title: 'NewApiKey' },
);

/** The most domains one TSIG key may name. */
export const MAX_TSIG_DOMAINS = 1000;

const tsigFields = {
  name: tsigName('The key\'s name, unique in the whole service (a DNS message names its key by this alone)'),
  algorithm: tsigAlgorithm,
  domains: Type.Array(Type.Integer({ minimum: 1 }), {
    maxItems: MAX_TSIG_DOMAINS,
    description: 'Ids of the account\'s own domains and zone mirrors the key may act on',
  }),
  update: Type.Union(
    [
      Type.Boolean(),
      Type.Object(scopeLists, { additionalProperties: false }),
    ],
    {
      description:
        'false (no DNS UPDATE), true (any name and type in the key\'s domains), or an object {"names": [...], "types": [...]} limiting the names and types an update may touch',
    },
  ),
  transfer: Type.Boolean({ description: 'Whether the key may transfer its domains by AXFR/IXFR' }),
};

export const TsigKeyCreate = Type.Object(
  {
    name: tsigFields.name,
    algorithm: Type.Optional(tsigFields.algorithm),
    secret: Type.Optional(tsigSecret),
    domains: Type.Optional(tsigFields.domains),
    update: Type.Optional(tsigFields.update),
    transfer: Type.Optional(tsigFields.transfer),
  },
  {
    additionalProperties: false,
    title: 'TsigKeyCreate',
    description: `A new TSIG key. Defaults: algorithm "${DEFAULT_TSIG_ALGORITHM}", a generated secret (${SECRET_BYTES} random bytes), domains [], update false, transfer false.`,
  },
);
export const TsigKeyPatch = Type.Partial(Type.Object({ name: tsigFields.name, algorithm: tsigFields.algorithm, domains: tsigFields.domains, update: tsigFields.update, transfer: tsigFields.transfer }), {
  additionalProperties: false,
  title: 'TsigKeyPatch',
  description: 'Any subset of the fields; the others keep their values. The secret cannot be changed: create a new key and delete the old one.',
});
const tsigKeyOut = {
  id: Type.Integer({ minimum: 1 }),
  name: tsigFields.name,
  algorithm: tsigFields.algorithm,
  domains: tsigFields.domains,
  update: tsigFields.update,
  transfer: tsigFields.transfer,
  created: Type.String({ format: 'date-time' }),
};
export const TsigKey = Type.Object(tsigKeyOut, { additionalProperties: false, title: 'TsigKey', description: 'A TSIG key (RFC 8945) for DNS UPDATE and signed transfers; its secret is never shown again after creation' });
export const NewTsigKey = Type.Object(
  { ...tsigKeyOut, secret: Type.String({ description: 'The shared secret, base64. Shown only this once; the server keeps it (it signs with it) but never shows it again.' }) },
  { additionalProperties: false, title: 'NewTsigKey' },
);
export const TsigKeyParams = Type.Object({ id: Type.Integer({ minimum: 1, description: 'TSIG key id' }) });

const dnssecAlgorithm = Type.Union(
  (Object.keys(DNSSEC_ALGORITHMS) as DnssecAlgorithm[]).map((a) => Type.Literal(a)),
  { description: `${Object.keys(DNSSEC_ALGORITHMS).map((a) => `"${a}"`).join(' or ')}: the signing algorithm (${Object.entries(DNSSEC_ALGORITHMS).map(([a, n]) => `${a} is ${n}`).join(', ')})` },
);

export const DnssecSettings = Type.Object(
  {
    enabled: Type.Boolean({ description: 'true: sign the zone (a zone being turned off is signed again with the keys it has); false: turn signing off safely (CDS/CDNSKEY delete first, signatures until the parent\'s DS has expired)' }),
    algorithm: Type.Optional(dnssecAlgorithm),
  },
  {
    additionalProperties: false,
    title: 'DnssecSettings',
    description: `Whether the zone is signed. The algorithm applies when signing starts (default "${DEFAULT_DNSSEC_ALGORITHM}"); a signed zone whose algorithm differs answers 409: change it with a rollover. Idempotent.`,
  },
);

export const DnssecRollover = Type.Object(
  { algorithm: Type.Optional(dnssecAlgorithm) },
  { additionalProperties: false, title: 'DnssecRollover', description: 'A rollover to a new key; of another algorithm when given (an algorithm rollover), else of the current one' },
);

export const DnssecKey = Type.Object(
  {
    id: Type.Integer({ minimum: 1 }),
    key_tag: Type.Integer({ minimum: 0, maximum: 65535, description: 'The key tag (RFC 4034 appendix B)' }),
    flags: Type.Integer({ description: '257: a combined signing key (zone key and secure entry point)' }),
    algorithm: Type.Integer({ description: 'The DNSSEC algorithm number (13 or 15)' }),
    state: Type.Union(
      DNSSEC_KEY_STATES.map((s) => Type.Literal(s)),
      { description: 'incoming (published and signing, not yet in CDS/CDNSKEY), active (in CDS/CDNSKEY: the DS at the parent should name it) or retiring (replaced, still published and signing until the old DS has expired)' },
    ),
    dnskey: Type.String({ description: 'The DNSKEY record, in master-file form' }),
    ds: Type.Array(Type.String(), { description: 'The DS record(s) to give the registrar (SHA-256, digest type 2), in master-file form' }),
    created: Type.String({ format: 'date-time', description: 'When the key was made and published' }),
  },
  { additionalProperties: false, title: 'DnssecKey', description: 'A signing key of the zone; its private key is never shown' },
);

export const Dnssec = Type.Object(
  {
    enabled: Type.Boolean({ description: 'Whether signing is on (false also while the zone is being turned off)' }),
    status: Type.Union([Type.Literal('signed'), Type.Literal('unsigning'), Type.Literal('off')], {
      description: 'signed; unsigning (CDS/CDNSKEY say delete and the keys still sign until the parent\'s DS has expired); off',
    }),
    algorithm: Type.Union([dnssecAlgorithm, Type.Null()], { description: 'The algorithm of the newest key; null when off' }),
    keys: Type.Array(DnssecKey, { description: 'The zone\'s keys, oldest first; empty when off' }),
    next_step: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When the next timed step (CDS switch, old key removed, signing stops) is due; null when none is pending' }),
  },
  { additionalProperties: false, title: 'Dnssec', description: 'DNSSEC of a domain: its state, keys and DS records' },
);

export const Event = Type.Object(
  {
    id: Type.Integer({ minimum: 1 }),
    at: Type.String({ format: 'date-time' }),
    domain_id: Type.Integer({ description: 'The domain changed (it may since have been deleted)' }),
    action: Type.String({ description: 'e.g. domain.create, record.update' }),
    object_id: Type.Union([Type.Integer(), Type.Null()], { description: 'The domain or record changed' }),
    serial: Type.Integer({ description: 'The zone serial after the change (0 for a deletion of the domain)' }),
    key_label: Type.String({ description: 'Label of the API key used (for DNS UPDATE: the TSIG key\'s name)' }),
    key_id: Type.Union([Type.Integer(), Type.Null()], { description: 'Id of the API key used; null when no API key was (DNS UPDATE, the command line, the server itself)' }),
    interface: Type.String({ description: 'v3 (interface A), v1 (interface B), cli, dns, or system (the server itself, e.g. a timed DNSSEC step)' }),
    remote_addr: Type.String({ description: 'Client address of the request' }),
    before: Type.Unknown({ description: 'The object before the change (canonical storage form), or null' }),
    after: Type.Unknown({ description: 'The object after the change (canonical storage form), or null' }),
  },
  { additionalProperties: false, title: 'Event' },
);

export const IdParams = Type.Object({ id: Type.Integer({ minimum: 1, description: 'Domain or zone-mirror id' }) });
export const RecordParams = Type.Object({ id: Type.Integer({ minimum: 1, description: 'Domain id' }), rid: Type.Integer({ minimum: 1, description: 'Record id' }) });
export const KeyParams = Type.Object({ id: Type.Integer({ minimum: 1, description: 'Key id' }) });

const page = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: DEFAULT_PAGE, description: `Page size, at most ${MAX_PAGE}` })),
  after: Type.Optional(Type.Integer({ minimum: 0, description: 'Cursor: return items after this id. Follow the Link rel="next" header instead of building it.' })),
};
export const PageQuery = Type.Object(page, { additionalProperties: false });
export const NameQuery = Type.Object(
  { ...page, name: Type.Optional(Type.String({ maxLength: MAX_NAME_LENGTH + 1, description: 'Only the one with this name' })) },
  { additionalProperties: false },
);
export const RecordListQuery = Type.Object(
  {
    ...page,
    name: Type.Optional(Type.String({ maxLength: MAX_NAME_LENGTH + 1, description: 'Only records with this owner name as stored, relative to the domain ("" or "@" for the domain itself; SRV owners are _service._protocol[.name])' })),
    // Read as "must be one of ..." in an error, and as the filter's values in the document.
    type: Type.Optional(Type.Union(RECORD_TYPES.map((t) => Type.Literal(t.type)), { description: `one of ${RECORD_TYPES.map((t) => t.type).join(', ')}: only records of this type` })),
  },
  { additionalProperties: false },
);
export const TypeListQuery = Type.Object(
  { ...page, name: RecordListQuery.properties.name },
  { additionalProperties: false },
);
export const EventQuery = Type.Object(
  { ...page, domain: Type.Optional(Type.Integer({ minimum: 1, description: 'Only the changes of this domain id (also of a deleted one)' })) },
  { additionalProperties: false },
);

/**
 * A response describes what is stored, which includes records made through interface A under its own
 * rules, so input-only constraints (patterns) are dropped; types, formats and ranges stay.
 */
function outputField(s: TSchema): TSchema {
  const { pattern: _p, ...rest } = s as TSchema & { pattern?: string };
  return rest as TSchema;
}

export interface RecordSchemas {
  create: TObject;
  replace: TObject;
  patch: TObject;
  record: TObject;
}

/** The four schemas of one record type, straight from its registry module. */
export function recordSchemas(t: RecordType): RecordSchemas {
  const fields: TProperties = t.v1Fields;
  const createProps: TProperties = {};
  for (const [k, s] of Object.entries(fields)) createProps[k] = t.v1Required.includes(k) ? s : Type.Optional(s);
  const out: TProperties = { id: Type.Integer({ minimum: 1, description: 'Record id, shared with interface A (ResourceID)' }), type: Type.Literal(t.type) };
  for (const [k, s] of Object.entries(fields)) out[k] = outputField(s);
  const what = `${t.type} record (${t.description})`;
  return {
    create: Type.Object(createProps, { additionalProperties: false, title: `${t.type}Create`, description: `A new ${what}. Omitted fields take the defaults shown.` }),
    replace: Type.Object(createProps, { additionalProperties: false, title: `${t.type}Replace`, description: `The full ${what}; omitted optional fields are reset to their defaults.` }),
    patch: Type.Partial(Type.Object(fields), { additionalProperties: false, title: `${t.type}Patch`, description: `Any subset of the fields of the ${what}; the others keep their values.` }),
    record: Type.Object(out, { additionalProperties: false, title: t.type, description: `An ${what}` }),
  };
}

export const RECORD_SCHEMAS = new Map(RECORD_TYPES.map((t) => [t.type, recordSchemas(t)]));
export const AnyRecord = Type.Union(
  RECORD_TYPES.map((t) => (RECORD_SCHEMAS.get(t.type) as RecordSchemas).record),
  { title: 'Record', description: 'A record of any type; `type` says which' },
);

/** Response map entries shared by every route: errors are problem documents. */
export const problemResponse = {
  description: 'An error, as an RFC 9457 problem document. A 401 carries WWW-Authenticate, a 405 Allow, a 429 Retry-After.',
  content: { 'application/problem+json': { schema: Problem } },
};

const HEADERS = {
  ETag: 'Entity tag of the representation, for If-Match',
  Location: 'URL of the new resource',
  Link: 'The next page as <url>; rel="next", when more items follow',
} as const;

/** A success response for the OpenAPI document: the body schema, its description and the headers it carries. */
export function success<T extends TSchema>(schema: T, description: string, headers: (keyof typeof HEADERS)[] = []): T {
  return {
    ...schema,
    'x-response-description': description,
    ...(headers.length ? { headers: Object.fromEntries(headers.map((h) => [h, { type: 'string', description: HEADERS[h] }])) } : {}),
  };
}
