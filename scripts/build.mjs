#!/usr/bin/env node
/**
 * Builds dist/: the server (tsc, incremental: its build info is dist/.tsbuildinfo) and the control panel
 * (vite, into dist/panel). Each part is built only when a hash of its inputs differs from the one recorded
 * in dist/.build-inputs.json at its last build, so `npm start` on a built tree starts at once.
 *   node scripts/build.mjs           what changed (npm start)
 *   node scripts/build.mjs --all     both parts (npm run build, npm ci)
 *   node scripts/build.mjs --panel   the panel only, when changed (the panel tests)
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const STAMPS = join(ROOT, 'dist', '.build-inputs.json');

/** Each part, with the files and folders its output depends on (the lock file: the compiler's and libraries' versions). */
const PARTS = {
  server: { inputs: ['src', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'], build: buildServer },
  panel: { inputs: ['web', 'package-lock.json'], build: buildPanel },
};

function buildServer() {
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const { status } = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (status !== 0) throw new Error('tsc failed');
}

async function buildPanel() {
  // Loaded only when the panel is built: vite takes a moment to load.
  const { build } = await import('vite');
  await build({ configFile: join(ROOT, 'web', 'vite.config.ts') });
}

/** Every file under `path` (or `path` itself), sorted, so that the hash does not depend on listing order. */
function filesUnder(path) {
  const entries = (() => {
    try {
      return readdirSync(path, { withFileTypes: true });
    } catch (e) {
      if (e.code === 'ENOTDIR') return null;
      throw e;
    }
  })();
  if (entries === null) return [path];
  return entries.flatMap((e) => filesUnder(join(path, e.name))).sort();
}

/** A hash of the names and contents of every input file. */
function inputsHash(inputs) {
  const hash = createHash('sha256');
  for (const file of inputs.flatMap((i) => filesUnder(join(ROOT, i)))) {
    hash.update(`${relative(ROOT, file)}\0`).update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

function readStamps() {
  try {
    return JSON.parse(readFileSync(STAMPS, 'utf8'));
  } catch {
    return {};
  }
}

async function main(args) {
  const all = args.includes('--all');
  const names = args.includes('--panel') ? ['panel'] : Object.keys(PARTS);
  for (const name of names) {
    const part = PARTS[name];
    const hash = inputsHash(part.inputs);
    if (!all && readStamps()[name] === hash) continue;
    await part.build();
    // Read again: the server's build may have just made dist/.
    mkdirSync(dirname(STAMPS), { recursive: true });
    writeFileSync(STAMPS, `${JSON.stringify({ ...readStamps(), [name]: hash }, null, 2)}\n`);
  }
}

main(process.argv.slice(2)).catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
