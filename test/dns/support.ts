/** Runs the real dig/kdig against a test server and reads their output into a comparable shape. */
import { execFile } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { createSocket } from 'node:dgram';
import * as packet from 'dns-packet';
import { promisify } from 'node:util';
import type { TestServer } from '../support/server.js';
import { data } from '../v3/support.js';

const run = promisify(execFile);

export interface DigRecord {
  name: string;
  ttl: number;
  type: string;
  data: string;
}

export interface DigAnswer {
  status: string;
  opcode: string;
  flags: string[];
  answer: DigRecord[];
  authority: DigRecord[];
  additional: DigRecord[];
  /** The EDNS line (`; EDNS: version: 0, flags: do; udp: 1232`), or null without OPT. */
  edns: string | null;
  /** The question as printed, e.g. "WwW.Example.COM. IN A". */
  question: string | null;
  raw: string;
}

function parseRecord(line: string): DigRecord {
  const [name = '', ttl = '0', , type = '', ...rest] = line.split(/\s+/);
  return { name, ttl: Number(ttl), type, data: rest.join(' ') };
}

/** Parses dig's or kdig's default presentation output. */
export function parseDig(out: string): DigAnswer {
  const a: DigAnswer = { status: '', opcode: '', flags: [], answer: [], authority: [], additional: [], edns: null, question: null, raw: out };
  let section: 'answer' | 'authority' | 'additional' | 'question' | null = null;
  for (const line of out.split('\n')) {
    const header = /opcode: (\w+); status: (\w+)|opcode: (\w+), status: (\w+)/.exec(line);
    if (header) {
      a.opcode = header[1] ?? header[3] ?? '';
      a.status = header[2] ?? header[4] ?? '';
    }
    const flags = /^;; [Ff]lags: ([^;]*);/.exec(line);
    if (flags) a.flags = (flags[1] ?? '').trim().split(/\s+/).filter(Boolean);
    if (/^; EDNS|^;; EDNS PSEUDOSECTION|^;; Version:/.test(line) && !a.edns) a.edns = line;
    if (/QUESTION SECTION/.test(line)) section = 'question';
    else if (/ANSWER SECTION/.test(line)) section = 'answer';
    else if (/AUTHORITY SECTION/.test(line)) section = 'authority';
    else if (/ADDITIONAL SECTION/.test(line)) section = 'additional';
    else if (line.trim() === '' || line.startsWith(';; ')) section = section === 'question' ? null : line.trim() === '' ? null : section;
    else if (section === 'question' && line.startsWith(';')) a.question = line.slice(1).trim().replace(/\s+/g, ' ');
    else if (section && section !== 'question' && !line.startsWith(';')) a[section].push(parseRecord(line));
  }
  return a;
}

/**
 * How long dig and kdig wait for an answer: a query is never sent twice (a test sees every lost answer), but a
 * CI machine running the suite on two cores can hold a node's threads off the CPU for a second or two (two
 * mirror tests there timed out at 2 s on their first query, never alone or on a quiet machine).
 */
const WAIT_S = '5';

/** Runs dig against the test server's DNS port; extra arguments as dig takes them. */
export async function dig(server: TestServer, ...args: string[]): Promise<DigAnswer> {
  const port = server.dnsAddress?.port;
  if (!port) throw new Error('the test server has no DNS');
  const { stdout } = await run('dig', ['-p', String(port), '@127.0.0.1', '+norec', `+time=${WAIT_S}`, '+tries=1', ...args], { timeout: 15_000 });
  return parseDig(stdout);
}

/** Runs kdig (Knot's client) against the test server. */
export async function kdig(server: TestServer, ...args: string[]): Promise<DigAnswer> {
  const port = server.dnsAddress?.port;
  if (!port) throw new Error('the test server has no DNS');
  const { stdout } = await run('kdig', ['-p', String(port), '@127.0.0.1', '+norec', `+time=${WAIT_S}`, '+retry=0', ...args], { timeout: 15_000 });
  return parseDig(stdout);
}

/** Record data of one section, sorted, as "name ttl type data" lines (case kept). */
export const rrs = (records: DigRecord[]): string[] => records.map((r) => `${r.name} ${r.ttl} ${r.type} ${r.data}`).sort();

/** Creates a master domain through interface A and returns its id. */
export async function createDomain(base: string, key: string, domain: string, extra: Record<string, string | number> = {}): Promise<number> {
  return (await data(base, { api_action: 'domain.create', api_key: key, Domain: domain, Type: 'master', SOA_Email: `hostmaster@${domain}`, ...extra })).DomainID;
}

/** Creates a record through interface A and returns its id. */
export async function createRecord(base: string, key: string, domainId: number, fields: Record<string, string | number>): Promise<number> {
  return (await data(base, { api_action: 'domain.resource.create', api_key: key, DomainID: domainId, ...fields })).ResourceID;
}

/**
 * Sends raw DNS messages over UDP from one socket bound to `from` and resolves to the first reply
 * (replies arrive in order on loopback); rejects when none comes within 5 s.
 */
export async function udpExchange(port: number | undefined, packets: Buffer | Buffer[], from = '127.0.0.1'): Promise<Buffer> {
  const socket = createSocket('udp4');
  try {
    const reply = new Promise<Buffer>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no answer over UDP')), 5000);
      socket.once('message', (m) => {
        clearTimeout(timer);
        resolve(m);
      });
    });
    await new Promise<void>((resolve) => socket.bind(0, from, () => resolve()));
    for (const p of Array.isArray(packets) ? packets : [packets]) socket.send(p, port, '127.0.0.1');
    return await reply;
  } finally {
    socket.close();
  }
}

/** One UDP question to 127.0.0.1:`port`: the answer's rcode (0 for NOERROR) and the data of its answer records. */
export async function dnsAnswer(port: number, name: string, type: string): Promise<{ rcode: number; answers: string[] }> {
  const query = packet.encode({ type: 'query', id: randomInt(65536), flags: 0, questions: [{ name, type: type as packet.RecordType, class: 'IN' }] });
  const reply = packet.decode(await udpExchange(port, query));
  return { rcode: (reply.flags ?? 0) & 15, answers: (reply.answers ?? []).filter((a) => a.type === type).map((a) => String((a as { data: unknown }).data)) };
}

/** How a DNS UPDATE client ended. */
export interface UpdateOutcome {
  ok: boolean;
  /** What the client printed about the failure ("NXDOMAIN", "REFUSED", "tsig verify failure", ...). */
  output: string;
}

/**
 * Runs an update client (`nsupdate`, `knsupdate`; after `prefix`, a command that wraps it) with `script` on
 * stdin against the test server's DNS port, signed with `key` (`alg:name:secret`) unless null.
 */
export function updateClient(server: TestServer, prefix: string[], command: string, key: string | null, script: string[], flags: string[] = [], port = server.dnsAddress?.port): Promise<UpdateOutcome> {
  const argv = [...prefix, command, ...flags, ...(key ? ['-y', key] : []), '-t', '3'];
  return new Promise((resolve) => {
    const child = execFile(argv[0] as string, argv.slice(1), { timeout: 15_000 }, (err, stdout, stderr) => resolve({ ok: !err, output: `${stdout}${stderr}` }));
    child.stdin?.end([`server 127.0.0.1 ${port}`, ...script, 'send', ''].join('\n'));
  });
}
