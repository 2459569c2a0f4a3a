import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { betterSqlite3 } from '../../src/store/sqlite/better-sqlite3.js';

const require = createRequire(import.meta.url);
const ROOT = join(import.meta.dirname, '..', '..');
const CHOOSER = 'src/store/sqlite/better-sqlite3.ts';

/** Every TypeScript file under `dir` (relative to the repository). */
function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(dir, f));
}

describe('better-sqlite3', () => {
  it('is version 13 where Node-API 10 is there (Node.js 22.14+), whose objects Node.js 24 can collect safely; 12 elsewhere', () => {
    const chosen = betterSqlite3();
    const expected = Number(process.versions.napi) >= 10 ? require('better-sqlite3-v13') : require('better-sqlite3');
    expect(chosen).toBe(expected);
    const db = new chosen(':memory:');
    expect(db.prepare('select 1 as one').get()).toEqual({ one: 1 });
    db.close();
  });

  it('is loaded through its chooser only: one module opened directly (a test helper did) aborts a Node.js 24 test process when collected', () => {
    const direct = ['src', 'test', 'bench', 'scripts']
      .flatMap(sources)
      .filter((f) => f !== CHOOSER && /^import (?!type )[^;]*from 'better-sqlite3(-v13)?';/m.test(readFileSync(join(ROOT, f), 'utf8')));
    expect(direct).toEqual([]);
  });
});
