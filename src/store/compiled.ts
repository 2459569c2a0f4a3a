/**
 * Queries built and compiled once per shape. Kysely builds and compiles a query anew on every call: for a domain
 * list read with its API key (DialectSql.rowWithList) that took some 160 µs of the server's CPU a request, more
 * than PostgreSQL spends running it. Such a query is built once from its parameters with a marker in place of
 * each value, and each later call of that shape only puts its values where the markers went.
 */
import type { Compilable, CompiledQuery } from 'kysely';

/** Where one value of the parameters goes. */
class Marker {
  constructor(readonly index: number) {}
}

/** `v` with every string and number in it (depth first) replaced by `leaf`'s answer; undefined fields left out. */
function mapLeaves(v: unknown, leaf: (value: unknown) => unknown): unknown {
  if (typeof v === 'string' || typeof v === 'number') return leaf(v);
  if (Array.isArray(v)) return v.map((x) => mapLeaves(x, leaf));
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = mapLeaves(x, leaf);
    return out;
  }
  return v;
}

/** At most this many shapes are kept (a handful are used); past it, a query is compiled each time. */
const MAX_SHAPES = 200;

export class CompiledQueries {
  private readonly shapes = new Map<string, CompiledQuery>();

  /**
   * The query `build` makes of `params`, compiled. `build` may only hand the strings and numbers in `params` to
   * Kysely as values (never compute with them): what else it reads of them (which fields are given, how many
   * items a list has) is their shape, which names the compiled query kept.
   */
  compile<P>(params: P, build: (params: P) => Compilable): CompiledQuery {
    const values: unknown[] = [];
    mapLeaves(params, (v) => values.push(v));
    const shape = JSON.stringify(mapLeaves(params, (v) => typeof v));
    let template = this.shapes.get(shape);
    if (!template) {
      let n = 0;
      template = build(mapLeaves(params, () => new Marker(n++)) as P).compile();
      if (this.shapes.size < MAX_SHAPES) this.shapes.set(shape, template);
    }
    const parameters = template.parameters.map((p) => (p instanceof Marker ? values[p.index] : p));
    // No plugin is installed, so no query needs an id of its own.
    return { ...template, parameters };
  }
}
