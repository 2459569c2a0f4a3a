/** Schemas of /v1/domains (master zones) and /v1/zonemirrors (secondary zones). */
import { Type } from '@sinclair/typebox';
import { MAX_ADDRESS_LIST, MAX_TLS_CA_LENGTH } from '../../../model/domain.js';
import { MAX_NAME_LENGTH } from '../../../model/names.js';
import { MAX_TTL } from '../../../model/ttl.js';
import { pageFields, timestamp, tsigAlgorithm, tsigName, tsigSecret } from '../shared-schemas.js';

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

const masterTls = Type.Boolean({
  description: 'Whether SOA queries and transfers go to the masters over TLS (RFC 9103, port 853, ALPN "dot"); their certificate is verified only as tls_verify says',
});
const masterTlsAuth = Type.Union(
  [
    Type.Object(
      {
        name: Type.String({ minLength: 1, maxLength: MAX_NAME_LENGTH + 1, description: "The host name (or IP address) the masters' certificate must be valid for" }),
        ca: Type.Optional(
          Type.Union([Type.String({ maxLength: MAX_TLS_CA_LENGTH }), Type.Null()], { description: 'The CA certificates (PEM) that may issue it; null or omitted: the CAs the server\'s system trusts' }),
        ),
      },
      { additionalProperties: false },
    ),
    Type.Null(),
  ],
  {
    description:
      'With tls: verify the masters\' certificate (issuer and name) and refuse a master whose certificate does not pass, as {"name", "ca"}; null (the default): not verified, opportunistic TLS, where a TSIG key authenticates the zone',
  },
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
    tls: Type.Optional(masterTls),
    tls_verify: Type.Optional(masterTlsAuth),
  },
  { additionalProperties: false, title: 'ZoneMirrorCreate', description: 'A new zone mirror (secondary zone). Defaults: status "active", axfr [], tsig null, tls false, tls_verify null.' },
);
export const MirrorReplace = Type.Object(MirrorCreate.properties, { additionalProperties: false, title: 'ZoneMirrorReplace' });
export const MirrorPatch = Type.Partial(Type.Object(MirrorCreate.properties), { additionalProperties: false, title: 'ZoneMirrorPatch' });
export const Mirror = Type.Object(
  {
    id: idField,
    domain: mirrorFields.domain,
    masters: mirrorFields.masters,
    status: mirrorFields.status,
    axfr: addressList('Addresses allowed to transfer the mirrored zone from this server'),
    tsig: masterTsigOut,
    tls: masterTls,
    tls_verify: masterTlsAuth,
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

export const NameQuery = Type.Object(
  { ...pageFields, name: Type.Optional(Type.String({ maxLength: MAX_NAME_LENGTH + 1, description: 'Only the one with this name' })) },
  { additionalProperties: false },
);
