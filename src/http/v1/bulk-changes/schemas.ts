/** Schemas of POST /v1/domains/{id}/changes: a list of record changes and what applying it answers. */
import { Type } from '@sinclair/typebox';
import { RECORD_TYPES } from '../../../model/records/index.js';
import { CHANGE_OPS } from '../../../services/bulk-changes.js';
import { AnyRecord } from '../records/schemas.js';

/** The most changes one request may carry. */
export const MAX_CHANGES = 30_000;

const typeNames = RECORD_TYPES.map((t) => t.type);
/** An enum rather than a union of literals: a bad value is one error, not one per type. */
const recordTypeName = Type.Unsafe<string>({ type: 'string', enum: typeNames, description: `one of ${typeNames.join(', ')}` });

export const ChangeItemSchema = Type.Object(
  {
    op: Type.Unsafe<string>({ type: 'string', enum: [...CHANGE_OPS], description: `one of ${CHANGE_OPS.join(', ')}` }),
    type: recordTypeName,
    id: Type.Optional(Type.Integer({ minimum: 1, description: 'The record to update or delete (required for them; refused for create)' })),
  },
  {
    additionalProperties: true,
    title: 'Change',
    description:
      'One change. create: the fields of the type\'s create body ({TYPE}Create, e.g. ACreate: name, address, ttl). update: id and any of the type\'s fields ({TYPE}Patch), laid over the stored record as PATCH does; the type must be the record\'s. delete: id only.',
  },
);

export const ChangeList = Type.Object(
  {
    changes: Type.Array(ChangeItemSchema, { maxItems: MAX_CHANGES, description: `The changes, applied together (at most ${MAX_CHANGES})` }),
  },
  { additionalProperties: false, title: 'ChangeList', description: 'Record changes to apply as one write, all or none' },
);

const DeletedRecord = Type.Object(
  {
    id: Type.Integer({ minimum: 1, description: 'The deleted record\'s id' }),
    type: recordTypeName,
    deleted: Type.Literal(true),
  },
  { additionalProperties: false, title: 'DeletedRecord', description: 'A record the change list deleted' },
);

export const ChangeResult = Type.Object(
  {
    serial: Type.Integer({ minimum: 0, description: 'The zone\'s serial after the changes (raised once for the whole list)' }),
    changes: Type.Array(Type.Union([AnyRecord, DeletedRecord]), {
      description: 'One entry per change, in the order of the request: the record as created or updated (with its id), or {id, type, deleted: true}',
    }),
  },
  { additionalProperties: false, title: 'ChangeResult' },
);
