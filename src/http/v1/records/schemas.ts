/**
 * Schemas of a domain's records, one set per type of the record-type registry (v1Fields), and the
 * queries and path parameters of the record routes.
 */
import { Type, type TObject, type TProperties, type TSchema } from '@sinclair/typebox';
import { MAX_NAME_LENGTH } from '../../../model/names.js';
import { RECORD_TYPES, type RecordType } from '../../../model/records/index.js';
import { MAX_SUBNETS, MAX_WEIGHT } from '../../../model/steering.js';
import { pageFields } from '../shared-schemas.js';

export const RecordParams = Type.Object({ id: Type.Integer({ minimum: 1, description: 'Domain id' }), rid: Type.Integer({ minimum: 1, description: 'Record id' }) });
export const RecordListQuery = Type.Object(
  {
    ...pageFields,
    name: Type.Optional(Type.String({ maxLength: MAX_NAME_LENGTH + 1, description: 'Only records with this owner name as stored, relative to the domain ("" or "@" for the domain itself; SRV owners are _service._protocol[.name])' })),
    // Read as "must be one of ..." in an error, and as the filter's values in the document.
    type: Type.Optional(Type.Union(RECORD_TYPES.map((t) => Type.Literal(t.type)), { description: `one of ${RECORD_TYPES.map((t) => t.type).join(', ')}: only records of this type` })),
  },
  { additionalProperties: false },
);
export const TypeListQuery = Type.Object(
  { ...pageFields, name: RecordListQuery.properties.name },
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

/** A record's steering (docs/interface-b.md "Steering"): each part optional. */
export const SteeringSchema = Type.Object(
  {
    healthcheck: Type.Optional(Type.Integer({ minimum: 1, description: 'Id of one of your health checks (/v1/healthchecks): while it is down the record is left out of answers, unless every candidate is down' })),
    weight: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_WEIGHT, description: 'Among the candidates left, one is served at random in proportion to its weight (a record without one counts as 1)' })),
    subnets: Type.Optional(
      Type.Array(Type.String({ maxLength: 64 }), {
        minItems: 1,
        maxItems: MAX_SUBNETS,
        description: 'CIDR networks: the record is served only to clients inside one of them (EDNS Client Subnet, else the source address), the most specific match winning',
      }),
    ),
  },
  { additionalProperties: false, title: 'Steering', description: 'Which clients the record is served to, and when' },
);
/** On a write, null removes the record's steering. */
const steeringInput = Type.Union([SteeringSchema, Type.Null()], { description: 'steering {healthcheck, weight, subnets}, or null for none' });

export interface RecordSchemas {
  create: TObject;
  replace: TObject;
  patch: TObject;
  record: TObject;
}

/** The four schemas of one record type, straight from its registry module. */
export function recordSchemas(t: RecordType): RecordSchemas {
  const fields: TProperties = { ...t.v1Fields, steering: steeringInput };
  const createProps: TProperties = {};
  for (const [k, s] of Object.entries(fields)) createProps[k] = t.v1Required.includes(k) ? s : Type.Optional(s);
  const out: TProperties = { id: Type.Integer({ minimum: 1, description: 'Record id, shared with interface A (ResourceID)' }), type: Type.Literal(t.type) };
  for (const [k, s] of Object.entries(t.v1Fields)) out[k] = outputField(s);
  out.steering = Type.Optional(SteeringSchema);
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

