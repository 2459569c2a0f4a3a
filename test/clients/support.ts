/**
 * Runs the python drivers in this folder: Debian's Linode clients (lexicon, libcloud, certbot-dns-linode) pointed at
 * a test server's interface A or its v4 door. Always async (never spawnSync: the server runs in this process).
 */
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PYTHON } from '../support/peer-table.js';

const HERE = dirname(fileURLToPath(import.meta.url));

export interface PyResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON, when it is JSON. */
  json: any;
}

/**
 * Runs `script` from test/clients with `args`, the client pointed at `endpoint` (e.g. http://127.0.0.1:1234/api/);
 * `v4Endpoint` (e.g. http://127.0.0.1:1234/v4/) points the clients of Linode's API v4 at the v4 door.
 */
export function py(script: string, args: string[], endpoint: string, v4Endpoint?: string): Promise<PyResult> {
  const env = {
    ...process.env,
    ZONEHOST_V3_ENDPOINT: endpoint,
    ...(v4Endpoint ? { ZONEHOST_V4_ENDPOINT: v4Endpoint } : {}),
    // Loopback only: a proxy from the environment must never see the test traffic.
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
    PYTHONDONTWRITEBYTECODE: '1',
  };
  return new Promise((resolve) => {
    execFile(PYTHON, [join(HERE, script), ...args], { env, timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ code, stdout, stderr, json });
    });
  });
}

/** A successful run's JSON output; fails with the client's own output otherwise. */
export async function pyOk(script: string, args: string[], endpoint: string, v4Endpoint?: string): Promise<any> {
  const r = await py(script, args, endpoint, v4Endpoint);
  if (r.code !== 0) throw new Error(`${script} ${args.join(' ')} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
  return r.json;
}
