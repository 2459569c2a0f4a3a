/**
 * Record types and their fields, read from the server's OpenAPI document (which the server generates from
 * its record-type registry), so the panel's forms follow the registry without a copy of it.
 */

export interface FieldSpec {
  name: string;
  /**
   * `json`: an object or a list (SVCB's svc_params), edited as JSON text. `strings`: a string or a list of
   * strings (TXT's character-strings), edited as the text, or as a JSON list of strings for several.
   */
  kind: 'integer' | 'string' | 'json' | 'strings';
  required: boolean;
  description: string;
  default?: string | number;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
}

export interface TypeSpec {
  type: string;
  description: string;
  fields: FieldSpec[];
}

interface JsonSchema {
  type?: string;
  description?: string;
  required?: string[];
  properties?: Record<string, JsonSchema>;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  anyOf?: JsonSchema[];
}

interface OpenApi {
  paths: Record<string, { post?: { requestBody?: { content?: Record<string, { schema?: JsonSchema }> } } }>;
}

const TYPE_PATH = /^\/v1\/domains\/\{id\}\/([A-Z0-9]+)$/;

let cached: Promise<TypeSpec[]> | null = null;

/** A string or a list of strings is the one union a record field has (TXT); its limits are the string's. */
const stringOf = (s: JsonSchema): JsonSchema | undefined => s.anyOf?.find((alt) => alt.type === 'string');

function kindOf(s: JsonSchema): FieldSpec['kind'] {
  if (stringOf(s)) return 'strings';
  return s.type === 'integer' ? 'integer' : s.type === 'object' || s.type === 'array' ? 'json' : 'string';
}

function fieldOf(name: string, property: JsonSchema, required: boolean): FieldSpec {
  const s = stringOf(property) ?? property;
  return {
    name,
    kind: kindOf(property),
    required,
    description: property.description ?? '',
    ...(s.default === undefined ? {} : { default: typeof s.default === 'number' ? s.default : toText(s.default) }),
    ...(s.minimum === undefined ? {} : { minimum: s.minimum }),
    ...(s.maximum === undefined ? {} : { maximum: s.maximum }),
    ...(s.maxLength === undefined ? {} : { maxLength: s.maxLength }),
  };
}

/** The record types in the server's order, each with the fields of its create schema. */
export function recordTypes(): Promise<TypeSpec[]> {
  cached ??= (async () => {
    const res = await fetch('/v1/openapi.json');
    if (!res.ok) throw new Error(`The API description could not be loaded (HTTP ${res.status}).`);
    const doc = (await res.json()) as OpenApi;
    const types: TypeSpec[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      const type = TYPE_PATH.exec(path)?.[1];
      const schema = item.post?.requestBody?.content?.['application/json']?.schema;
      if (!type || !schema?.properties) continue;
      const required = new Set(schema.required ?? []);
      types.push({
        type,
        description: schema.description ?? '',
        // Steering has its own fields in the form (pages/SteeringFields.tsx).
        fields: Object.entries(schema.properties)
          .filter(([name]) => name !== 'steering')
          .map(([name, s]) => fieldOf(name, s, required.has(name))),
      });
    }
    return types;
  })();
  cached.catch(() => {
    cached = null; // try again next time
  });
  return cached;
}

/** Form text for a field's value; objects and lists as JSON. */
export const toText = (v: unknown): string => (v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));

/** JSON text as its value; text that is not JSON as typed, for the server to explain. */
function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A JSON list of strings as that list (several character-strings); any other text as one string. */
function stringsOf(text: string): unknown {
  const value = jsonOf(text);
  return Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string') ? value : text;
}

/**
 * The body for the API from form texts: integers as numbers, JSON fields as their value; a blank optional
 * field is left out (the server applies its default on create, keeps the value on update).
 */
export function bodyOf(fields: FieldSpec[], values: Record<string, string>, only?: Set<string>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const f of fields) {
    if (only && !only.has(f.name)) continue;
    const text = values[f.name] ?? '';
    if (text.trim() === '' && !f.required && f.name !== 'name') continue;
    // A number the user typed goes as a number; anything else as typed, for the server to explain.
    body[f.name] = f.kind === 'json' ? jsonOf(text) : f.kind === 'strings' ? stringsOf(text) : f.kind === 'integer' && /^\s*-?\d+\s*$/.test(text) ? Number(text) : text;
  }
  return body;
}
