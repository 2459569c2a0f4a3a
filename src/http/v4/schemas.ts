/** Schema pieces the v4 door's resources share. */
import { Type, type TSchema, type Static } from '@sinclair/typebox';

/**
 * An optional field that may also be null: Linode's clients send null for "not given" (lexicon's record
 * update sends `"type": null`), so null means the field was left out. One JSON type list, not an anyOf, so
 * a wrong value gets one clear problem.
 */
export function orNull<T extends TSchema>(schema: T) {
  const s = schema as unknown as { type: string; enum?: unknown[] };
  return Type.Optional(Type.Unsafe<Static<T> | null>({ ...schema, type: [s.type, 'null'], ...(s.enum ? { enum: [...s.enum, null] } : {}) }));
}

/** One of `values`, as one enum (not an anyOf of literals). */
export const oneOf = <T extends string>(values: readonly T[], description?: string) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...(description ? { description } : {}) });

/** Seconds, as Linode takes them (rounded by the service as interface A rounds them). */
export const Seconds = Type.Integer({ minimum: 0, maximum: 2 ** 31 - 1 });

/** `created`/`updated` as Linode writes them. */
export const Time = Type.String({ description: 'UTC, YYYY-MM-DDTHH:MM:SS' });

/** What DELETE answers: an empty object, as Linode does. */
export const Empty = Type.Object({});

/** A list answer of `item`s. */
export const Page = <T extends TSchema>(item: T) =>
  Type.Object({ data: Type.Array(item), page: Type.Integer(), pages: Type.Integer(), results: Type.Integer() });
