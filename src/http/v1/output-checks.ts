/**
 * Interface B's success bodies are checked against their published schemas before they are sent (a body
 * that breaks its schema becomes a 500, never a wrong answer), and written quickly where the schema allows.
 */
import type { ValidateFunction } from 'ajv';
import type { FastifyInstance } from 'fastify';
import { HttpProblem } from './problem.js';
import { output } from './validators.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Validators of the route's success bodies, by status code (set when the route is added). */
    outputChecks?: Map<number, ValidateFunction>;
    /** Its success bodies hold records of any type or open objects: written by JSON.stringify once checked. */
    plainOutput?: boolean;
  }
}

/**
 * The schema with the branches of every union moved to `$defs` and referred to. Inlined, a union of every
 * record type makes one function too large for V8 to optimise, and a record list's check several times slower.
 */
function unionsByReference(schema: object): object {
  const defs: Record<string, unknown> = {};
  const byReference = (branch: unknown) => {
    const name = `u${Object.keys(defs).length}`;
    defs[name] = null; // taken before the branch's own unions are named
    defs[name] = walk(branch);
    return { $ref: `#/$defs/${name}` };
  };
  const walk = (s: unknown): unknown => {
    if (Array.isArray(s)) return s.map(walk);
    if (!s || typeof s !== 'object') return s;
    const anyOf = (s as { anyOf?: unknown }).anyOf;
    // A union told apart by a `type` constant (the record types) goes straight to its branch, not through each.
    if (Array.isArray(anyOf) && anyOf.every(taggedByType)) {
      const { anyOf: _, ...rest } = s as Record<string, unknown>;
      return { ...walk(rest) as object, discriminator: { propertyName: 'type' }, oneOf: anyOf.map(byReference) };
    }
    return Object.fromEntries(Object.entries(s).map(([k, v]) => [k, k === 'anyOf' && Array.isArray(v) ? v.map(byReference) : walk(v)]));
  };
  const root = walk(schema) as Record<string, unknown>;
  return Object.keys(defs).length ? { ...root, $defs: defs } : root;
}

/** A union branch whose `type` is a required constant (each record type's schema). */
function taggedByType(branch: unknown): boolean {
  const b = branch as { properties?: { type?: { const?: unknown } }; required?: unknown[] } | null;
  return typeof b?.properties?.type?.const === 'string' && Array.isArray(b.required) && b.required.includes('type');
}

/** Compiled output checks by what they check: many routes answer with the same schema (a record of one type, a page of them). */
const outputChecks = new Map<string, ValidateFunction>();
/** What a response schema checks: all but what `success` adds to document it, which differs from route to route. */
const checkedPart = ({ 'x-response-description': _d, headers: _h, ...checked }: Record<string, unknown>) => JSON.stringify(checked);

/** The check of a success body, compiled once per schema (compiling them all took most of the server's start). */
function outputCheck(schema: object): ValidateFunction {
  const key = checkedPart(schema as Record<string, unknown>);
  let check = outputChecks.get(key);
  if (!check) outputChecks.set(key, (check = output.compile(unionsByReference(schema))));
  return check;
}

/**
 * Whether the schema holds, anywhere, a union of record types (the schema-driven serialiser would test each
 * record against every type's branch to pick one) or an object open to more fields (which it writes one
 * field at a time): bodies of such schemas are written by JSON.stringify once the output check has passed.
 */
function plainOutput(s: unknown): boolean {
  if (Array.isArray(s)) return s.some(plainOutput);
  if (!s || typeof s !== 'object') return false;
  const { anyOf, additionalProperties } = s as { anyOf?: unknown; additionalProperties?: unknown };
  if (Array.isArray(anyOf) && anyOf.length > 1 && anyOf.every(taggedByType)) return true;
  if (additionalProperties === true) return true;
  return Object.values(s).some(plainOutput);
}

/** Success bodies as the route's schema publishes them, per status code. */
function successSchemas(response: unknown): [number, object][] {
  if (!response || typeof response !== 'object') return [];
  return Object.entries(response as Record<string, object>)
    .filter(([code]) => /^2\d\d$/.test(code) && code !== '204')
    .map(([code, schema]) => [Number(code), schema]);
}

/**
 * Output is validated as well as input (serialisation alone would drop unknown fields but pass bad values):
 * every route gets the checks of its success bodies when it is added, and each answer is checked before it is sent.
 */
export function checkSuccessBodies(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const successes = successSchemas(route.schema?.response);
    const checks = new Map(successes.map(([code, schema]) => [code, outputCheck(schema)]));
    if (checks.size > 0) route.config = { ...route.config, outputChecks: checks, plainOutput: successes.some(([, schema]) => plainOutput(schema)) };
  });
  /**
   * Bodies frozen by their route, which hands the same one to many requests (a domain list the store kept:
   * http/shown-lists.ts), as checked and written the first time, by route and status code.
   */
  const written = new WeakMap<object, { route: string; status: number; text: string }>();
  app.addHook('preSerialization', async (req, reply, payload) => {
    const frozen = payload !== null && typeof payload === 'object' && Object.isFrozen(payload);
    const done = frozen ? written.get(payload) : undefined;
    if (done && done.route === req.routeOptions.url && done.status === reply.statusCode) {
      reply.serializer(() => done.text);
      return payload;
    }
    const check = req.routeOptions.config?.outputChecks?.get(reply.statusCode);
    if (check && !check(payload)) {
      req.log.error({ errors: check.errors, url: req.url }, 'interface B response broke its schema; not sent');
      throw new HttpProblem(500, 'The server produced an invalid response; nothing was sent.');
    }
    // Such a body, once checked (every record schema is closed), is written as it is (see plainOutput).
    if (check && req.routeOptions.config?.plainOutput) reply.serializer(JSON.stringify);
    if (check && frozen) {
      const text = reply.serialize(payload) as string;
      written.set(payload, { route: req.routeOptions.url ?? '', status: reply.statusCode, text });
      reply.serializer(() => text);
    }
    return payload;
  });
}
