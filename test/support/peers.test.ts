/** The table of test/support/peers.ts and the install list of .ci/peers (npm run peers, .ci/run) cannot drift apart. */
import { execFileSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { PEERS } from './peer-table.js';

it('.ci/peers installs every package the peers table names', () => {
  const listed = execFileSync('bash', ['.ci/peers', '--list'], { encoding: 'utf8' }).split('\n');
  const named = [...new Set(Object.values(PEERS).map((p) => p.package))].sort();
  expect(named.filter((p) => !listed.includes(p))).toEqual([]);
});
