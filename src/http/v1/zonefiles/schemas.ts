/** Schemas of /v1/domains/{id}/zonefile and .../zonefile/transfer: the difference an import makes, the transfer's source. */
import { Type } from '@sinclair/typebox';

export const DiffRecord = Type.Object(
  {
    id: Type.Optional(Type.Integer({ description: "The record's id; absent for a record a dry run would create" })),
    type: Type.String({ description: 'The record type' }),
  },
  { additionalProperties: true, description: "A record as its type's path shows it (`GET /v1/domains/{id}/{TYPE}/{rid}`)" },
);

export const Settings = Type.Object(
  {
    soa: Type.String({ description: "The SOA e-mail after the import (the file's SOA contact)" }),
    default_ttl: Type.Integer({ description: "The domain's default TTL after the import (the file's SOA TTL, rounded); 0 = the server default" }),
    refresh: Type.Integer({ description: 'SOA refresh after the import, seconds (0 = the default)' }),
    retry: Type.Integer({ description: 'SOA retry after the import, seconds (0 = the default)' }),
    expire: Type.Integer({ description: 'SOA expire after the import, seconds (0 = the default)' }),
    changed: Type.Array(Type.String(), { description: 'The settings the file changes (names as in this object)' }),
  },
  { description: "The domain settings the file's SOA gives; without an SOA in the file, the domain's own" },
);

export const Diff = Type.Object(
  {
    dry_run: Type.Boolean({ description: 'True when nothing was written' }),
    added: Type.Array(DiffRecord, { description: "Records of the file the zone did not have (with their new ids after a real import)" }),
    removed: Type.Array(DiffRecord, { description: 'Records of the zone the file does not have' }),
    changed: Type.Array(Type.Object({ before: DiffRecord, after: DiffRecord }), { description: 'Records with the same data whose TTL the file changes (the same id)' }),
    unchanged: Type.Array(DiffRecord, { description: 'Records the file leaves as they are' }),
    domain: Settings,
  },
  { description: 'What the import changes (real PUT) or would change (dry run). Records are the same when their type, owner and wire data are (RFC 2181 5).' },
);

export const DryRunQuery = Type.Object(
  { dry_run: Type.Optional(Type.Boolean({ default: false, description: 'Answer the difference and write nothing' })) },
  { additionalProperties: false },
);


export const TransferBody = Type.Object(
  {
    server: Type.String({ maxLength: 64, description: "The IP address (IPv4 or IPv6, not a host name) of the server to transfer from, e.g. the current provider's primary" }),
    port: Type.Optional(Type.Integer({ default: 53, description: 'Its port: 53 (the default) or 1024-65535' })),
    tsig: Type.Optional(
      Type.Object(
        {
          name: Type.String({ maxLength: 255, description: 'The key name' }),
          algorithm: Type.String({ maxLength: 32, description: 'hmac-sha256 (and -sha224, -sha384, -sha512, hmac-sha1)' }),
          secret: Type.String({ maxLength: 1024, description: 'The shared secret, base64' }),
        },
        { additionalProperties: false, description: 'The TSIG key the server wants for the transfer (used for this transfer only, not stored)' },
      ),
    ),
  },
  { additionalProperties: false },
);
