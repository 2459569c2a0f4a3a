/**
 * The layering rule, read from the source's imports: model → store → services → doors (src/http, src/dns), and
 * no import cycle in src/ or web/src/. Failing here names the file and the import that break the rule.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Each file (relative to the repository) with the files its relative imports name, `.js` read as `.ts(x)`. */
function importGraph(dir: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(join(ROOT, dir))) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map(([, spec]) => {
      const target = normalize(join(dirname(file), spec!)).replace(/\.js$/, '');
      const found = ['.ts', '.tsx', '/index.ts'].map((ext) => target + ext).find((p) => { try { return statSync(p).isFile(); } catch { return false; } });
      return relative(ROOT, found ?? target);
    });
    graph.set(relative(ROOT, file), targets);
  }
  return graph;
}

/** One import cycle as a list of files, or null. */
function findCycle(graph: Map<string, string[]>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string): string[] | null => {
    if (state.get(file) === 'done') return null;
    if (state.get(file) === 'open') return [...stack.slice(stack.indexOf(file)), file];
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    stack.pop();
    state.set(file, 'done');
    return null;
  };
  for (const file of graph.keys()) {
    const cycle = visit(file);
    if (cycle) return cycle;
  }
  return null;
}

const src = importGraph('src');
const importsInto = (from: string, into: string[]): string[] =>
  [...src].filter(([file]) => file.startsWith(from)).flatMap(([file, targets]) =>
    targets.filter((t) => into.some((room) => t.startsWith(room))).map((t) => `${file} imports ${t}`));

describe('the layers of src/', () => {
  it('has no import cycle', () => {
    expect(findCycle(src)).toBeNull();
  });

  it('has no import cycle in the panel (web/src)', () => {
    expect(findCycle(importGraph('web/src'))).toBeNull();
  });

  it('keeps model/ free of every layer above it', () => {
    expect(importsInto('src/model/', ['src/store/', 'src/services/', 'src/http/', 'src/dns/', 'src/cli/'])).toEqual([]);
  });

  it('keeps the store below the services and the doors', () => {
    expect(importsInto('src/store/', ['src/services/', 'src/http/', 'src/dns/', 'src/cli/'])).toEqual([]);
  });

  it('keeps the services below the doors', () => {
    expect(importsInto('src/services/', ['src/http/', 'src/dns/', 'src/cli/'])).toEqual([]);
  });

  it('lets no door touch the store', () => {
    expect(importsInto('src/http/', ['src/store/'])).toEqual([]);
    expect(importsInto('src/dns/', ['src/store/'])).toEqual([]);
  });

  it('freezes migrations: none imports the live record-type registry', () => {
    expect(importsInto('src/store/migrations/', ['src/model/records/'])).toEqual([]);
  });
});
