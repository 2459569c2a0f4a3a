// Builds native/udp-batch, the batched UDP module of the DNS server (src/dns/server/udp-batch.ts), with the
// node-gyp that comes with npm: run by `npm ci`/`npm install` (the "install" script) and `npm run build:native`.
// A failed build is not an error: the server falls back to Node.js's dgram and says so when it starts.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dir = join(root, 'native', 'udp-batch');
const say = (line) => process.stdout.write(`zonehost: ${line}\n`);
const fallBack = (why) => {
  say(`the native UDP module (native/udp-batch) was not built: ${why}`);
  say('DNS will read and answer UDP one datagram per system call through Node.js dgram; to build it, install g++, make and python3, then run: npm run build:native');
};

/** node-gyp as npm runs it for packages' own builds, else the copy inside npm. */
function nodeGyp() {
  const candidates = [process.env.npm_config_node_gyp];
  if (process.env.npm_execpath) candidates.push(join(dirname(process.env.npm_execpath), '..', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'));
  return candidates.find((p) => p && existsSync(p)) ?? null;
}

if (process.platform !== 'linux') {
  say(`the native UDP module is for Linux (recvmmsg/sendmmsg); on ${process.platform} DNS reads UDP through Node.js dgram`);
} else {
  const gyp = nodeGyp();
  if (!gyp) fallBack('node-gyp not found (run this through npm: npm run build:native)');
  else {
    const run = spawnSync(process.execPath, [gyp, 'rebuild', '--loglevel=error'], { cwd: dir, encoding: 'utf8' });
    if (run.status === 0) say('built the native UDP module (native/udp-batch): DNS reads and answers UDP in batches');
    else fallBack(`node-gyp failed:\n${`${run.stdout ?? ''}${run.stderr ?? ''}${run.error?.message ?? ''}`.trim().split('\n').slice(-12).join('\n')}`);
  }
}
