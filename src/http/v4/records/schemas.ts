/** The v4 door's record bodies and answers, as Linode's API v4 shapes them. */
import { Type, type Static } from '@sinclair/typebox';
import { V4_TYPES } from '../../../model/records/index.js';
import { MAX_TXT_BYTES } from '../../../model/records/txt.js';
import { IdParam } from '../support.js';
import { oneOf, orNull, Page, Seconds, Time } from '../schemas.js';

export const V4_TYPE_NAMES = V4_TYPES.map((t) => t.type);

const Uint16 = Type.Integer({ minimum: 0, maximum: 65535 });

/** The fields of a record body besides its type (null: not given). The registry's rules judge the values. */
const fields = {
  name: orNull(Type.String({ maxLength: 256 })),
  // The longest TXT value, each byte written as a JSON escape at worst.
  target: orNull(Type.String({ maxLength: MAX_TXT_BYTES * 2 })),
  priority: orNull(Uint16),
  weight: orNull(Uint16),
  port: orNull(Uint16),
  service: orNull(Type.String({ maxLength: 64 })),
  protocol: orNull(Type.String({ maxLength: 32 })),
  tag: orNull(Type.String({ maxLength: 64 })),
  ttl_sec: orNull(Seconds),
};

export const RecordCreate = Type.Object({ type: oneOf(V4_TYPE_NAMES), ...fields });
/** PUT: the fields given change; `type` may be sent but not changed. */
export const RecordUpdate = Type.Object({ type: orNull(oneOf(V4_TYPE_NAMES)), ...fields });
export type RecordBody = Static<typeof RecordUpdate>;

export const RecordListParams = Type.Object({ domainId: IdParam });
export const RecordParams = Type.Object({ domainId: IdParam, recordId: IdParam });

const nullableString = Type.Union([Type.String(), Type.Null()]);

export const DomainRecord = Type.Object({
  id: Type.Integer(),
  type: Type.String(),
  name: Type.String(),
  target: Type.String(),
  priority: Type.Integer(),
  weight: Type.Integer(),
  port: Type.Integer(),
  service: nullableString,
  protocol: nullableString,
  tag: nullableString,
  ttl_sec: Type.Integer(),
  created: Time,
  updated: Time,
});

export const RecordPage = Page(DomainRecord);
