/**
 * What the propagation and scale suites share: `zonehost serve` as a child process (the built CLI, as
 * users run it), its interface A and B clients, and single UDP queries from this process.
 */
import dnsPacket from 'dns-packet';
import { createSocket } from 'node:dgram';
import { freePort, runCommand, startChild, waitFor, ZONEHOST_BIN, type Child } from '../support.js';

export const PASSWORD = 'bench password';

export interface Zonehost {
  child: Child;
  /** http://127.0.0.1:PORT */
  url: string;
  dnsPort: number;
  stop(): Promise<void>;
}

/** Adds the user "bench" (unless told it exists) to the store at `db`. */
export function addUser(db: string): void {
  runCommand(process.execPath, [ZONEHOST_BIN, 'user', 'add', 'bench', '--db', db], `${PASSWORD}\n`);
}

/**
 * Starts `zonehost serve` on loopback (DNS on `dnsPort` when given, `extra` flags added); resolves once HTTP answers.
 * Response rate limiting is off (--rrl-rate 0): the suites ask from one address faster than any one client would,
 * on purpose (a suite measuring RRL turns it on again in `extra`, which comes last).
 */
export async function serve(db: string, dnsPort?: number, extra: readonly string[] = []): Promise<Zonehost> {
  const http = await freePort();
  dnsPort ??= await freePort();
  const child = startChild(process.execPath, [
    ...(process.env.PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.PROF] : []), ZONEHOST_BIN, 'serve', '--db', db, '--http', `127.0.0.1:${http}`, '--dns', `127.0.0.1:${dnsPort}`, '--log-level', 'warn',
    '--rate-limit-address', '0', '--rate-limit-key', '0', '--max-records', '10000000', '--max-domains', '10000000', '--rrl-rate', '0', ...extra,
  ]);
  const url = `http://127.0.0.1:${http}`;
  try {
    await waitFor(`zonehost HTTP`, async () => {
      if (child.proc.exitCode !== null) throw new Error(`zonehost exited with ${child.proc.exitCode}: ${child.output()}`);
      return fetch(`${url}/healthz`).then((r) => r.ok, () => false);
    }, 600_000);
  } catch (e) {
    await child.stop();
    throw e;
  }
  return { child, url, dnsPort, stop: () => child.stop() };
}

/** Interface A call; throws with the first ERRORMESSAGE. */
export async function v3(url: string, args: Record<string, string | number>): Promise<any> {
  const body = new URLSearchParams(Object.entries(args).map(([k, v]): [string, string] => [k, String(v)]));
  const res = await fetch(`${url}/api/`, { method: 'POST', body });
  const envelope = (await res.json()) as { ERRORARRAY: { ERRORMESSAGE: string }[]; DATA: any };
  if (envelope.ERRORARRAY.length) throw new Error(`${args.api_action}: ${envelope.ERRORARRAY[0]?.ERRORMESSAGE}`);
  return envelope.DATA;
}

export async function apiKey(url: string): Promise<string> {
  return (await v3(url, { api_action: 'user.getapikey', username: 'bench', password: PASSWORD })).API_KEY as string;
}

/** Interface B call; throws on a non-2xx answer. */
export async function v1(url: string, key: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${url}/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} /v1${path}: HTTP ${res.status} ${text.slice(0, 500)}`);
  return text ? JSON.parse(text) : undefined;
}

/** A decoded answer: its rcode (number, as RCODE in src/dns/wire/message.ts), AA flag and answer records. */
export interface Reply {
  rcode: number;
  aa: boolean;
  answers: dnsPacket.Answer[];
}

export interface Resolver {
  /** The whole reply to `name`/`type`, or null on timeout. */
  ask(name: string, type: 'A' | 'SOA', timeoutMs?: number): Promise<Reply | null>;
  /** The data of the answer records for `name`/`type` (strings as dns-packet decodes them), or null on timeout. */
  query(name: string, type: 'A' | 'SOA', timeoutMs?: number): Promise<string[] | null>;
  close(): void;
}

/** A UDP socket for one query at a time to `host`:`port` (answers are matched by id; late ones dropped). */
export function resolver(host: string, port: number): Resolver {
  const socket = createSocket('udp4');
  socket.unref();
  let id = 0;
  let waiting: { id: number; resolve: (reply: Reply | null) => void } | null = null;
  socket.on('message', (msg) => {
    const packet = dnsPacket.decode(msg);
    if (!waiting || packet.id !== waiting.id) return;
    const w = waiting;
    waiting = null;
    w.resolve({ rcode: (packet.flags ?? 0) & 0x0f, aa: packet.flag_aa, answers: packet.answers ?? [] });
  });
  const ask = (name: string, type: 'A' | 'SOA', timeoutMs = 1000): Promise<Reply | null> => {
    id = (id + 1) & 0xffff;
    const packet = dnsPacket.encode({ type: 'query', id, questions: [{ name, type, class: 'IN' }] });
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        waiting = null;
        resolve(null);
      }, timeoutMs);
      waiting = { id, resolve: (r) => (clearTimeout(timer), resolve(r)) };
      socket.send(packet, port, host);
    });
  };
  return {
    ask,
    async query(name, type, timeoutMs) {
      const reply = await ask(name, type, timeoutMs);
      return reply && reply.answers.map((a) => ('data' in a && typeof a.data === 'string' ? a.data : JSON.stringify(a)));
    },
    close: () => socket.close(),
  };
}

/** Percentile (nearest rank) of unsorted samples. */
export function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
}
