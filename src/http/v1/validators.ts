/**
 * Interface B's Ajv instances, one per way of checking: compiled validators are cached per instance and
 * schema object, so a schema used by a route and by the bulk changes' items is compiled once.
 */
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

const common = { allErrors: true, verbose: true, strict: false, removeAdditional: false } as const;
/** Bodies are taken as sent (no coercion, no defaults filled in, unknown fields refused); every problem is reported. */
export const exact = addFormats(new Ajv({ ...common, coerceTypes: false, useDefaults: false }));
/** Query strings and path parameters are text: numbers are coerced, defaults applied. */
export const text = addFormats(new Ajv({ ...common, coerceTypes: true, useDefaults: true }));
/** Success bodies are checked as exactly as bodies, each union branch compiled as a function of its own (output-checks.ts). */
export const output = addFormats(new Ajv({ ...common, coerceTypes: false, useDefaults: false, inlineRefs: false, discriminator: true }));
