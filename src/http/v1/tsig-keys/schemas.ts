/** Schemas of /v1/tsigkeys: TSIG keys for DNS UPDATE and signed transfers. */
import { Type } from '@sinclair/typebox';
import { DEFAULT_TSIG_ALGORITHM, SECRET_BYTES } from '../../../model/tsig-key.js';
import { scopeLists, tsigAlgorithm, tsigName, tsigSecret } from '../shared-schemas.js';

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
  member_id: Type.Integer({ minimum: 1, description: 'The member who made the key (GET /v1/members): it never does more than that member may at the time of the message' }),
};
export const TsigKey = Type.Object(tsigKeyOut, { additionalProperties: false, title: 'TsigKey', description: 'A TSIG key (RFC 8945) for DNS UPDATE and signed transfers; its secret is never shown again after creation' });
export const NewTsigKey = Type.Object(
  { ...tsigKeyOut, secret: Type.String({ description: 'The shared secret, base64. Shown only this once; the server keeps it (it signs with it) but never shows it again.' }) },
  { additionalProperties: false, title: 'NewTsigKey' },
);
export const TsigKeyParams = Type.Object({ id: Type.Integer({ minimum: 1, description: 'TSIG key id' }) });
