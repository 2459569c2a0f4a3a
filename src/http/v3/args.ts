/**
 * Interface A arguments: names case-insensitive, values from the query string and the form body,
 * read and type-checked against the action's declared parameters (the same list api.spec publishes).
 */
import { CODES, V3Failure } from './envelope.js';

export type ParamType = 'numeric' | 'string' | 'boolean';

export interface ParamSpec {
  /** Spelled as api.spec spells it, e.g. `TTL_sec`. */
  name: string;
  type: ParamType;
  required: boolean;
  default?: string | number;
  description: string;
}

const INTEGER = /^\s*[-+]?\d+\s*$/;

/** One request's arguments, keyed by lower-case name. The first value wins when a name is repeated. */
export class Args {
  readonly values = new Map<string, string>();
  /** Original spelling of each name, for test.echo. */
  readonly names = new Map<string, string>();

  static from(...sources: unknown[]): Args {
    const args = new Args();
    for (const source of sources) {
      if (!source || typeof source !== 'object' || Array.isArray(source) || Buffer.isBuffer(source)) continue;
      for (const [name, raw] of Object.entries(source as Record<string, unknown>)) {
        const value = scalar(raw);
        const key = name.toLowerCase();
        if (value === undefined || args.values.has(key)) continue;
        args.values.set(key, value);
        args.names.set(key, name);
      }
    }
    return args;
  }

  has(name: string): boolean {
    return this.values.has(name.toLowerCase());
  }

  raw(name: string): string | undefined {
    return this.values.get(name.toLowerCase());
  }

  /** A string argument, checked against its spec: required ones must be present and non-empty. */
  str(spec: ParamSpec): string {
    const v = this.raw(spec.name);
    if (v === undefined || (spec.required && v.trim() === '')) {
      if (spec.required) throw missing(spec);
      return typeof spec.default === 'string' ? spec.default : '';
    }
    return v;
  }

  /** An integer argument; "" counts as not given for optional ones. */
  int(spec: ParamSpec): number {
    const v = this.raw(spec.name);
    if (v === undefined || v.trim() === '') {
      if (spec.required) throw missing(spec);
      return typeof spec.default === 'number' ? spec.default : 0;
    }
    if (!INTEGER.test(v) || !Number.isSafeInteger(Number(v))) {
      throw V3Failure.of(CODES.invalid, `${spec.name.toUpperCase()} must be a whole number.`);
    }
    return Number(v);
  }

  /** Whether an optional argument was given a usable value (present and, for numbers, non-empty). */
  given(spec: ParamSpec): boolean {
    const v = this.raw(spec.name);
    return v !== undefined && (spec.type !== 'numeric' || v.trim() !== '');
  }
}

function missing(spec: ParamSpec): V3Failure {
  // The real API's wording (ColdFusion): the name upper-cased, no final period.
  return V3Failure.of(CODES.missing, `${spec.name.toUpperCase()} is required but was not passed in`);
}

function scalar(raw: unknown): string | undefined {
  if (Array.isArray(raw)) return scalar(raw[0]);
  if (typeof raw === 'string') return raw;
  if (typeof raw === 'number' || typeof raw === 'boolean') return String(raw);
  if (Buffer.isBuffer(raw)) return raw.toString('utf8');
  return undefined;
}
