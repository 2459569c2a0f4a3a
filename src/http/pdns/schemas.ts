/**
 * The PowerDNS door's request schemas (TypeBox). Fields PowerDNS takes and ignores, or that only other
 * PowerDNS features use, are let through: clients send whole objects back (lexicon its RRsets, PowerDNS-Admin
 * its zones), so only what the door reads is typed, and a wrong type is a 422 as PowerDNS answers it.
 */
import { Type } from '@sinclair/typebox';

const open = { additionalProperties: true } as const;

export const ZoneParams = Type.Object({ zone_id: Type.String({ maxLength: 1024 }) });
export const KeyParams = Type.Object({ zone_id: Type.String({ maxLength: 1024 }), cryptokey_id: Type.String({ maxLength: 20 }) });
export const TsigParams = Type.Object({ tsigkey_id: Type.String({ maxLength: 1024 }) });

export const RecordBody = Type.Object({ content: Type.String({ maxLength: 70000 }), disabled: Type.Optional(Type.Boolean()) }, open);

export const RrsetBody = Type.Object(
  {
    name: Type.String({ maxLength: 1024 }),
    type: Type.String({ maxLength: 20 }),
    changetype: Type.Optional(Type.String({ maxLength: 20 })),
    // PowerDNS reads a TTL given as a string of digits too.
    ttl: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 2147483647 }), Type.String({ pattern: '^[0-9]{1,10}$' })])),
    records: Type.Optional(Type.Array(RecordBody)),
    comments: Type.Optional(Type.Array(Type.Unknown())),
  },
  open,
);

export const PatchBody = Type.Object({ rrsets: Type.Array(RrsetBody) }, open);

export const ZoneKind = Type.String({ maxLength: 20 });

export const CreateZoneBody = Type.Object(
  {
    name: Type.String({ maxLength: 1024 }),
    kind: ZoneKind,
    nameservers: Type.Optional(Type.Array(Type.String({ maxLength: 1024 }))),
    masters: Type.Optional(Type.Array(Type.String({ maxLength: 100 }))),
    rrsets: Type.Optional(Type.Array(RrsetBody)),
    dnssec: Type.Optional(Type.Boolean()),
    account: Type.Optional(Type.String({ maxLength: 255 })),
  },
  open,
);

export const UpdateZoneBody = Type.Object(
  {
    kind: Type.Optional(ZoneKind),
    masters: Type.Optional(Type.Array(Type.String({ maxLength: 100 }))),
    dnssec: Type.Optional(Type.Boolean()),
    account: Type.Optional(Type.String({ maxLength: 255 })),
  },
  open,
);

export const ZonesQuery = Type.Object({ zone: Type.Optional(Type.String({ maxLength: 1024 })), dnssec: Type.Optional(Type.String()) }, open);
export const ZoneQuery = Type.Object({ rrsets: Type.Optional(Type.String()), rrset_name: Type.Optional(Type.String()), rrset_type: Type.Optional(Type.String()) }, open);
export const SearchQuery = Type.Object(
  { q: Type.String({ maxLength: 1024 }), max: Type.Optional(Type.String({ maxLength: 10 })), object_type: Type.Optional(Type.String({ maxLength: 20 })) },
  open,
);

export const CryptokeyBody = Type.Object(
  { keytype: Type.Optional(Type.String()), active: Type.Optional(Type.Boolean()), published: Type.Optional(Type.Boolean()), algorithm: Type.Optional(Type.Union([Type.String(), Type.Integer()])) },
  open,
);

export const TsigKeyBody = Type.Object(
  { name: Type.Optional(Type.String({ maxLength: 255 })), algorithm: Type.Optional(Type.String({ maxLength: 64 })), key: Type.Optional(Type.String({ maxLength: 1024 })) },
  open,
);
