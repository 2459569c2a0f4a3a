/**
 * The one place that chooses which better-sqlite3 this process uses; everything else imports it from here.
 *
 * better-sqlite3 12 builds its Database and Statement on node::ObjectWrap, which registers environment
 * cleanup hooks since Node.js 24.19: a Statement that GC finalises outside a JS context (idle GC, worker
 * teardown) then aborts the process (WiseLibs/better-sqlite3#1515). 13 is built on Node-API and has no such
 * problem, but it supports only Node.js 22 and later, and we still run on 20. So 13 is an optional
 * dependency under the alias better-sqlite3-v13, used where it loads, and 12 is the fallback. Its prebuilt
 * addon needs Node-API 10 (Node.js 22.14+, 23.6+), and on an older Node loading it crashes the process
 * instead of throwing, so it is tried only where `process.versions.napi` says it can load.
 */
import { createRequire } from 'node:module';
import type BetterSqlite3Api from 'better-sqlite3';

/** 12 and 13 have the same API; @types/better-sqlite3 describes both. */
type Module = typeof BetterSqlite3Api;

const require = createRequire(import.meta.url);

function load(): Module {
  if (Number(process.versions.napi) >= 10) {
    try {
      const v13 = require('better-sqlite3-v13') as Module;
      // The addon is loaded on the first open, so open one to know that it works here.
      new v13(':memory:').close();
      return v13;
    } catch (e) {
      process.emitWarning(`better-sqlite3 13 does not load (${(e as Error).message}); using 12, which can abort the process on Node.js 24.19 and later`);
    }
  }
  return require('better-sqlite3') as Module;
}

let chosen: Module | undefined;

/** The module, chosen on first use, so that a process on PostgreSQL never loads either addon. */
export function betterSqlite3(): Module {
  return (chosen ??= load());
}
