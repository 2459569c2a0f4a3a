/** Schemas of /v1/domains/{id}/dnssec: signing settings, rollovers, keys and DS records. */
import { Type } from '@sinclair/typebox';
import { DEFAULT_DNSSEC_ALGORITHM, DNSSEC_ALGORITHMS, DNSSEC_KEY_STATES, type DnssecAlgorithm } from '../../../model/dnssec.js';

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
