/**
 * Every record type, black box, from one table: what a customer sees through interface B (round trip),
 * through DNS (dig and kdig print exactly the presentation form in the table), on a Knot secondary that
 * transferred the zone, in the exported zone file (named-checkzone), for invalid values (a problem naming
 * the field), and through interface A (the eight Linode types round-trip; the newer types are refused and
 * never listed, so v3 clients whose enum of types lacks them keep working).
 *
 * The presentation strings were taken from dig 9.18 and kdig 3.2 answering from knotd serving a zone file
 * with these records, and the file checks that they still are (the "oracle": the same knotd serves the
 * table, written as zone files, under a `.oracle` suffix). Where the two tools differ: dig splits hex
 * longer than 56 digits (TLSA, SSHFP, DS) with a space and quotes SVCB/HTTPS alpn values; kdig does
 * neither, and leaves a trailing space after CAA data (trimmed here).
 *
 * One test server and one knotd serve the whole file. All records are created first; DNS is then asked
 * with one dig and one kdig run holding every query, and the secondary is checked after one transfer.
 * Invalid values go last, to a zone of their own (PTR's to the reverse zone), and anything wrongly
 * accepted is deleted again.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dig, kdig, parseDig, type DigAnswer } from '../dns/support.js';
import { eventually, kdigAt, startKnot, zonehostPrimary, type Knot } from '../support/knot.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { checkAllZones, namedCheckzone } from '../support/zonefile.js';
import { client, problemFields, type Client, type Reply } from '../v1/support.js';
import { call as v3call, data as v3data } from '../v3/support.js';
import { peers } from '../support/peers.js';

// knotd, started before all tests when installed, serves the table from zone files and as our secondary.
const needsKnotdKnotc = peers('knotd', 'knotc');
const needsDigKdigKnotdKnotc = peers('dig', 'kdig', 'knotd', 'knotc');
const needsKnotdKnotcNamedCheckzone = peers('knotd', 'knotc', 'named-checkzone');
const needsDigKdig = peers('dig', 'kdig');
const needsKdigKnotdKnotc = peers('kdig', 'knotd', 'knotc');
const needsNamedCheckzone = peers('named-checkzone');

const run = promisify(execFile);

/** The Knot secondary's address: in our zones' axfr lists (NOTIFY goes there on port 53), and its transfers' source. */
const SECONDARY = '127.0.33.1';

/** Forward zone holding every type but PTR; reverse zone for PTR; a zone for interface A round trips; one for refused values. */
const ZONES = { main: 'types.example', reverse: '2.0.192.in-addr.arpa', v3: 'v3types.example', invalid: 'invalid-types.example' } as const;
type ZoneKey = keyof typeof ZONES;

type Body = Record<string, unknown>;
type V3Args = Record<string, string | number>;

/** One value that must be refused: the body is the row's with `set` laid over it; the problem must name `field`. */
interface Invalid {
  field: string | string[];
  set: Body;
  /** Default [400]. */
  status?: number[];
  /** A reason some error of the problem must give. */
  reason?: RegExp;
  /** Set false where the value has no interface A spelling. */
  v3?: boolean;
}

interface Row {
  type: string;
  /** Default main. */
  zone?: 'main' | 'reverse';
  /** The v1 body; written canonical, so the API must show it back unchanged. */
  body: Body;
  /** Owner relative to the zone, when it is not body.name (SRV). */
  owner?: string;
  /** The record data exactly as dig prints it. */
  dig: string;
  /** The record data as kdig prints it, when it differs from dig's. */
  kdig?: string;
  /** The answer is a referral (a delegation's NS set): the record is in the authority section. */
  referral?: boolean;
  /** Records to create first (type, v1 body, data as dig prints it), in the row's zone and in the invalid-values zone. */
  before?: { type: string; body: Body; dig: string }[];
  invalid: Invalid[];
  /** For the eight Linode types: the v1 body as interface A arguments, and the listing of a record made from them. */
  v3?: { args: (b: Body) => V3Args; listed: Body };
}

const bad = (field: string, value: unknown, more: Partial<Invalid> = {}): Invalid => ({ field, set: { [field]: value }, ...more });
const str = (v: unknown): string => (v === undefined ? '' : String(v));
const ttlArg = (b: Body): V3Args => (b.ttl === undefined ? {} : { TTL_sec: str(b.ttl) });

const SHA256_A = 'CA978112CA1BBDCAFAC231B39A23DC4DA786EFF8147C4E72B9807785AFEE48BB';
const SHA256_B = '3E23E8160039594A33894F6564E1B1348BBD7A0088D42C4ACB73EEAED59C009D';
const SHA256_C = '2E7D2C03A9507AE265ECF5B5356885A53393A2029D241394997265A1A25AEFC6';
const SHA1_A = '86F7E437FAA5A7FCE15D1DDCB9EAEAEA377667B8';
/** dig prints hex in groups of 56 digits. */
const digHex = (hex: string): string => hex.match(/.{1,56}/g)?.join(' ') ?? '';

const SVCB_BAD: Invalid[] = [
  bad('svc_priority', 70000),
  bad('svc_priority', -1),
  bad('target_name', 'bad..name'),
  bad('svc_params', { port: 'x' }),
  bad('svc_params', { port: 70000 }),
  bad('svc_params', { alpn: [] }),
  bad('svc_params', { ipv4hint: ['192.0.2.256'] }),
  bad('svc_params', { ipv6hint: ['192.0.2.1'] }),
  bad('svc_params', { ech: 'not base64!' }),
  bad('svc_params', { foo: 1 }),
  bad('svc_params', { mandatory: ['port'], alpn: ['h2'] }, { reason: /mandatory|port/i }),
  // AliasMode (priority 0) takes no parameters.
  { field: ['svc_params', 'svc_priority'], set: { svc_priority: 0, svc_params: { alpn: ['h2'] } } },
];

const ROWS: Row[] = [
  {
    type: 'A',
    body: { name: 'www', address: '192.0.2.1', ttl: 300 },
    dig: '192.0.2.1',
    invalid: [bad('address', '192.0.2.256'), bad('address', '2001:db8::1'), bad('name', 'bad..name'), bad('ttl', -1)],
    v3: { args: (b) => ({ Type: 'A', Name: str(b.name), Target: str(b.address), ...ttlArg(b) }), listed: { NAME: 'www', TYPE: 'A', TARGET: '192.0.2.1', TTL_SEC: 300 } },
  },
  {
    type: 'AAAA',
    body: { name: 'www', address: '2001:db8::1', ttl: 3600 },
    dig: '2001:db8::1',
    invalid: [bad('address', '2001:db8::g'), bad('address', '192.0.2.1')],
    v3: { args: (b) => ({ Type: 'AAAA', Name: str(b.name), Target: str(b.address), ...ttlArg(b) }), listed: { NAME: 'www', TYPE: 'AAAA', TARGET: '2001:db8::1', TTL_SEC: 3600 } },
  },
  {
    type: 'CNAME',
    body: { name: 'alias', target: 'www.types.example', ttl: 0 },
    dig: 'www.types.example.',
    invalid: [bad('target', 'bad..name'), bad('name', '')],
    v3: { args: (b) => ({ Type: 'CNAME', Name: str(b.name), Target: str(b.target), ...ttlArg(b) }), listed: { NAME: 'alias', TYPE: 'CNAME', TARGET: 'www.types.example', TTL_SEC: 0 } },
  },
  {
    type: 'MX',
    body: { name: '', priority: 10, mail_server: 'mail.example.net', ttl: 0 },
    dig: '10 mail.example.net.',
    invalid: [bad('priority', 70000), bad('mail_server', 'bad..name')],
    v3: {
      args: (b) => ({ Type: 'MX', Name: str(b.name), Target: str(b.mail_server), Priority: str(b.priority), ...ttlArg(b) }),
      listed: { NAME: '', TYPE: 'MX', TARGET: 'mail.example.net', PRIORITY: 10, TTL_SEC: 0 },
    },
  },
  {
    type: 'NS',
    body: { name: 'sub', nameserver: 'ns1.elsewhere.example', ttl: 0 },
    dig: 'ns1.elsewhere.example.',
    referral: true,
    invalid: [bad('nameserver', 'bad..name'), bad('name', '*')],
    v3: { args: (b) => ({ Type: 'NS', Name: str(b.name), Target: str(b.nameserver), ...ttlArg(b) }), listed: { NAME: 'sub', TYPE: 'NS', TARGET: 'ns1.elsewhere.example' } },
  },
  {
    type: 'TXT',
    body: { name: 'txt', text: 'hello "world" ü', ttl: 0 },
    dig: '"hello \\"world\\" \\195\\188"',
    invalid: [bad('text', ''), bad('text', 'bell\u0007')],
    v3: { args: (b) => ({ Type: 'TXT', Name: str(b.name), Target: str(b.text), ...ttlArg(b) }), listed: { NAME: 'txt', TYPE: 'TXT', TARGET: 'hello "world" ü' } },
  },
  {
    // Several character-strings: a list, kept string by string (interface A lists them in this master-file form).
    type: 'TXT',
    body: { name: 'txt2', text: ['quoted "escape" and \\backslash', 'second string', ''], ttl: 0 },
    dig: '"quoted \\"escape\\" and \\\\backslash" "second string" ""',
    invalid: [bad('text', []), bad('text', ['', '']), bad('text', ['é'.repeat(128), 'x']), bad('text', ['a', 'bell\u0007'])],
  },
  {
    type: 'SRV',
    body: { service: 'sip', protocol: 'tcp', name: '', priority: 10, weight: 5, port: 5060, target: 'sip.example.net', ttl: 0 },
    owner: '_sip._tcp',
    dig: '10 5 5060 sip.example.net.',
    invalid: [bad('port', 70000), bad('weight', -1), bad('target', 'bad..name'), bad('protocol', 'bad proto', { field: ['protocol', 'name'] })],
    v3: {
      args: (b) => ({
        Type: 'SRV',
        Name: [str(b.service), str(b.name)].filter(Boolean).join('.'),
        Protocol: str(b.protocol),
        Priority: str(b.priority),
        Weight: str(b.weight),
        Port: str(b.port),
        Target: str(b.target),
        ...ttlArg(b),
      }),
      listed: { NAME: '_sip._tcp', TYPE: 'SRV', TARGET: 'sip.example.net', PRIORITY: 10, WEIGHT: 5, PORT: 5060, PROTOCOL: 'tcp' },
    },
  },
  {
    type: 'CAA',
    body: { name: '', tag: 'issue', value: 'letsencrypt.org', ttl: 0 },
    dig: '0 issue "letsencrypt.org"',
    invalid: [bad('tag', 'contactemail'), bad('value', 'letsencrypt.org.'), bad('value', '')],
    v3: { args: (b) => ({ Type: 'CAA', Name: str(b.name), Tag: str(b.tag), Target: str(b.value), ...ttlArg(b) }), listed: { NAME: '', TYPE: 'CAA', TARGET: 'letsencrypt.org', TAG: 'issue' } },
  },
  // Types interface A never had.
  {
    type: 'PTR',
    zone: 'reverse',
    body: { name: '10', ptrdname: 'host.example.com', ttl: 0 },
    dig: 'host.example.com.',
    invalid: [bad('ptrdname', 'bad..name'), bad('ptrdname', ''), bad('name', 'bad..name')],
  },
  {
    type: 'TLSA',
    body: { name: '_443._tcp.www', certificate_usage: 3, selector: 1, matching_type: 1, certificate_association_data: SHA256_A, ttl: 0 },
    dig: `3 1 1 ${digHex(SHA256_A)}`,
    kdig: `3 1 1 ${SHA256_A}`,
    invalid: [
      bad('certificate_usage', 256),
      bad('selector', -1),
      bad('matching_type', 256),
      bad('certificate_association_data', 'xyz'),
      bad('certificate_association_data', ''),
      // Matching type 1 is SHA-256: 32 bytes.
      bad('certificate_association_data', 'ABCDEF'),
      // Matching type 2 is SHA-512: 64 bytes, not 32.
      { field: ['certificate_association_data', 'matching_type'], set: { matching_type: 2 } },
    ],
  },
  {
    // Matching type 0: the full data, of any length.
    type: 'TLSA',
    body: { name: '_25._tcp.mail', certificate_usage: 2, selector: 0, matching_type: 0, certificate_association_data: 'ABCDEF', ttl: 0 },
    dig: '2 0 0 ABCDEF',
    invalid: [],
  },
  {
    type: 'SSHFP',
    body: { name: 'host', algorithm: 4, fingerprint_type: 2, fingerprint: SHA256_B, ttl: 0 },
    dig: `4 2 ${digHex(SHA256_B)}`,
    kdig: `4 2 ${SHA256_B}`,
    invalid: [
      bad('algorithm', 256),
      bad('fingerprint_type', 256),
      bad('fingerprint', 'zz'),
      // Type 2 is SHA-256: 32 bytes, not 20.
      bad('fingerprint', SHA1_A),
    ],
  },
  {
    type: 'SSHFP',
    body: { name: 'host', algorithm: 1, fingerprint_type: 1, fingerprint: SHA1_A, ttl: 0 },
    dig: `1 1 ${SHA1_A}`,
    invalid: [bad('fingerprint', SHA256_B)],
  },
  {
    type: 'SVCB',
    body: {
      name: '_dns.svc',
      svc_priority: 1,
      target_name: 'svc.example.net',
      svc_params: {
        mandatory: ['alpn', 'port'],
        alpn: ['h2'],
        'no-default-alpn': true,
        port: 853,
        ipv4hint: ['192.0.2.1', '192.0.2.2'],
        ech: 'AEX+DQBBpQAgACB/',
        ipv6hint: ['2001:db8::1', '2001:db8::2'],
      },
      ttl: 0,
    },
    dig: '1 svc.example.net. mandatory=alpn,port alpn="h2" no-default-alpn port=853 ipv4hint=192.0.2.1,192.0.2.2 ech=AEX+DQBBpQAgACB/ ipv6hint=2001:db8::1,2001:db8::2',
    kdig: '1 svc.example.net. mandatory=alpn,port alpn=h2 no-default-alpn port=853 ipv4hint=192.0.2.1,192.0.2.2 ech=AEX+DQBBpQAgACB/ ipv6hint=2001:db8::1,2001:db8::2',
    invalid: SVCB_BAD,
  },
  {
    type: 'SVCB',
    body: { name: 'svc2', svc_priority: 2, target_name: '.', svc_params: { alpn: ['h3', 'h2'] }, ttl: 0 },
    dig: '2 . alpn="h3,h2"',
    kdig: '2 . alpn=h3,h2',
    invalid: [],
  },
  {
    type: 'HTTPS',
    body: { name: 'www', svc_priority: 1, target_name: '.', svc_params: { alpn: ['h2', 'h3'], port: 8443, ipv4hint: ['192.0.2.1'] }, ttl: 0 },
    dig: '1 . alpn="h2,h3" port=8443 ipv4hint=192.0.2.1',
    kdig: '1 . alpn=h2,h3 port=8443 ipv4hint=192.0.2.1',
    invalid: SVCB_BAD,
  },
  {
    // AliasMode.
    type: 'HTTPS',
    body: { name: 'svcalias', svc_priority: 0, target_name: 'www.types.example', svc_params: {}, ttl: 0 },
    dig: '0 www.types.example.',
    invalid: [],
  },
  {
    type: 'NAPTR',
    body: { name: 'sip', order: 100, preference: 10, flags: 'U', services: 'E2U+sip', regexp: '!^.*$!sip:info@example.com!', replacement: '.', ttl: 0 },
    dig: '100 10 "U" "E2U+sip" "!^.*$!sip:info@example.com!" .',
    invalid: [bad('flags', 'U!'), bad('order', 70000), bad('preference', -1), bad('replacement', 'bad..name')],
  },
  {
    type: 'NAPTR',
    body: { name: 'sip', order: 100, preference: 20, flags: 'S', services: 'SIP+D2U', regexp: '', replacement: '_sip._udp.example.com', ttl: 0 },
    dig: '100 20 "S" "SIP+D2U" "" _sip._udp.example.com.',
    invalid: [],
  },
  {
    type: 'DS',
    body: { name: 'child', key_tag: 12345, algorithm: 13, digest_type: 2, digest: SHA256_C, ttl: 0 },
    dig: `12345 13 2 ${digHex(SHA256_C)}`,
    kdig: `12345 13 2 ${SHA256_C}`,
    // A DS record belongs at a delegation: the parent side of a child zone's NS set.
    before: [{ type: 'NS', body: { name: 'child', nameserver: 'ns1.child.example.net', ttl: 0 }, dig: 'ns1.child.example.net.' }],
    invalid: [
      bad('digest', 'xyz'),
      // Digest type 2 is SHA-256: 32 bytes.
      bad('digest', 'ABCDEF'),
      bad('key_tag', 70000),
      bad('algorithm', 256),
      bad('digest_type', 256),
      // No NS set at this name: nothing is delegated there.
      { field: [], set: { name: 'nochild' }, status: [400, 409], reason: /\bNS\b|delegat/i },
    ],
  },
];

const OLD_TYPES = ['A', 'AAAA', 'CNAME', 'MX', 'NS', 'TXT', 'SRV', 'CAA'];
const NEW_TYPES = [...new Set(ROWS.map((r) => r.type).filter((t) => !OLD_TYPES.includes(t)))];

const zoneOf = (row: Row): string => ZONES[row.zone ?? 'main'];
/** Absolute owner name, lower case; `suffix` is appended to the zone name (the oracle's copies). */
const ownerOf = (row: Pick<Row, 'owner' | 'body' | 'zone'>, suffix = ''): string => {
  const rel = row.owner ?? str(row.body.name);
  return `${rel ? `${rel}.` : ''}${ZONES[row.zone ?? 'main']}${suffix}.`.toLowerCase();
};
/** The oracle serves each of our zones under this suffix, from a zone file holding the table's records. */
const ORACLE = '.oracle';
function oracleZoneFile(zone: string): string {
  const lines = [`$ORIGIN ${zone}${ORACLE}.`, '$TTL 300', `@ SOA ns${ORACLE}. hostmaster${ORACLE}. 1 3600 600 86400 300`, `@ NS ns${ORACLE}.`];
  for (const row of ROWS.filter((r) => zoneOf(r) === zone)) {
    for (const pre of row.before ?? []) lines.push(`${ownerOf({ ...row, body: pre.body, owner: undefined }, ORACLE)} ${pre.type} ${pre.dig}`);
    // kdig's form: dig's splits hex and quotes alpn, both of which zone files also take, but one form is enough.
    lines.push(`${ownerOf(row, ORACLE)} ${row.type} ${row.kdig ?? row.dig}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Rows sharing an owner and type form one RRset: DNS must show exactly their data. */
const rrsetKey = (row: Row): string => `${ownerOf(row)} ${row.type}`;
const rrsets = new Map<string, Row[]>();
for (const row of ROWS) rrsets.set(rrsetKey(row), [...(rrsets.get(rrsetKey(row)) ?? []), row]);
/** "TYPE owner", with the row's place in its RRset when it shares one. */
const labelOf = (row: Row): string => {
  const set = rrsets.get(rrsetKey(row)) ?? [];
  return `${row.type} ${ownerOf(row)}${set.length > 1 ? ` (${set.indexOf(row) + 1} of ${set.length})` : ''}`;
};

let server: TestServer;
let knot: Knot | undefined;
let key: string;
let api: Client;
const ids = {} as Record<ZoneKey, number>;
/** Each row's POST reply. */
const created = new Map<Row, Reply>();

beforeAll(async () => {
  server = await startTestServer();
  ({ key } = await server.user('types'));
  api = client(server.base, key);
  for (const [k, domain] of Object.entries(ZONES) as [ZoneKey, string][]) {
    const followed = k === 'main' || k === 'reverse';
    const r = await api.post('/v1/domains', { domain, soa: `hostmaster@${ZONES.main}`, ...(followed ? { axfr: [SECONDARY] } : {}) });
    if (r.status !== 201) throw new Error(`cannot create ${domain}: ${r.text}`);
    ids[k] = r.body.id;
  }
  for (const row of ROWS) {
    for (const pre of row.before ?? []) {
      for (const zone of [row.zone ?? 'main', 'invalid'] as const) {
        const r = await api.post(`/v1/domains/${ids[zone]}/${pre.type}`, pre.body);
        if (r.status !== 201) throw new Error(`cannot create the ${pre.type} record ${row.type} needs: ${r.text}`);
      }
    }
    created.set(row, await api.post(`/v1/domains/${ids[row.zone ?? 'main']}/${row.type}`, row.body));
  }
  // Started once the zones are complete: its first AXFR already carries everything. It also serves the
  // table from zone files (the oracle), to show that the table's strings are what dig and kdig print.
  const followed = [ZONES.main, ZONES.reverse];
  const secondaryZones = followed.map((z) => `  - domain: ${z}\n    master: zonehost\n    acl: notify_from_zonehost\n    storage: "{dir}"\n`);
  const oracleZones = followed.map((z) => `  - domain: ${z}${ORACLE}\n    file: "{dir}/${z}${ORACLE}.zone"\n    zonefile-sync: -1\n    journal-content: none\n`);
  if (needsKnotdKnotc.reason === null) knot = await startKnot({
    address: SECONDARY,
    files: Object.fromEntries(followed.map((z) => [`${z}${ORACLE}.zone`, oracleZoneFile(z)])),
    config: `${zonehostPrimary(server)}zone:
${[...secondaryZones, ...oracleZones].join('')}`,
  });
});

afterAll(async () => {
  await knot?.stop();
  await server?.close();
});

/** Runs `f` once, on first use, and hands every caller the same result. */
function once<T>(f: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | undefined;
  return () => (p ??= f());
}

/** Every RRset's data, as one run of the tool shows it; a referral's NS set is read from the authority section. */
function dataByRRset(answer: DigAnswer, suffix = ''): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const r of [...answer.answer, ...answer.authority]) {
    const name = r.name.toLowerCase();
    const k = `${suffix && name.endsWith(`${suffix}.`) ? `${name.slice(0, -suffix.length - 1)}.` : name} ${r.type}`;
    // kdig leaves a space after some records (CAA).
    if (rrsets.has(k)) out.set(k, [...(out.get(k) ?? []), r.data.trim()]);
  }
  for (const v of out.values()) v.sort();
  return out;
}

/** One query per RRset of the table, all in one command line. */
const queries = (suffix = ''): string[] => [...rrsets.values()].flatMap((rows) => [ownerOf(rows[0] as Row, suffix), (rows[0] as Row).type]);
const ourDig = once(async () => dataByRRset(await dig(server, ...queries())));
const ourKdig = once(async () => dataByRRset(await kdig(server, ...queries())));

/** dig against the Knot server (the dig helper of test/dns/support.ts asks our server). */
async function digAt(k: Knot, ...args: string[]): Promise<DigAnswer> {
  const { stdout } = await run('dig', ['-p', String(k.port), `@${k.address}`, '+norec', '+time=2', '+tries=1', ...args], { timeout: 15_000 });
  return parseDig(stdout);
}
const started = (): Knot => {
  if (!knot) throw new Error('knotd did not start');
  return knot;
};
const oracleDig = once(async () => dataByRRset(await digAt(started(), ...queries(ORACLE)), ORACLE));
const oracleKdig = once(async () => dataByRRset(await kdigAt(started(), ...queries(ORACLE)), ORACLE));

const soaSerial = async (answer: Promise<DigAnswer>): Promise<string | undefined> => (await answer).answer.find((r) => r.type === 'SOA')?.data.split(' ')[2];

/** Waits until the secondary holds both zones at our serials, then asks it every query once. */
const knotKdig = once(async () => {
  const k = started();
  for (const zone of [ZONES.main, ZONES.reverse]) {
    const ours = await soaSerial(kdig(server, zone, 'SOA'));
    await eventually(`knotd holding ${zone} at serial ${ours}\n${k.log()}`, async () => (await soaSerial(kdigAt(k, zone, 'SOA'))) === ours);
  }
  return dataByRRset(await kdigAt(k, ...queries()));
});

const expectedDig = (row: Row): string[] => (rrsets.get(rrsetKey(row)) ?? []).map((r) => r.dig).sort();
const expectedKdig = (row: Row): string[] => (rrsets.get(rrsetKey(row)) ?? []).map((r) => r.kdig ?? r.dig).sort();

/** The created record, after checking the POST succeeded. */
function record(row: Row): { id: number } & Body {
  const r = created.get(row);
  expect(r?.status, `POST /v1/domains/{id}/${row.type}: ${r?.text}`).toBe(201);
  return r?.body;
}

describe('the table', () => {
  for (const row of ROWS) {
    needsDigKdigKnotdKnotc.it(`${labelOf(row)}: is what dig and kdig print for the record served by knotd from a zone file`, async () => {
      expect((await oracleDig()).get(rrsetKey(row)), 'dig').toEqual(expectedDig(row));
      expect((await oracleKdig()).get(rrsetKey(row)), 'kdig').toEqual(expectedKdig(row));
    });
  }

  needsKnotdKnotcNamedCheckzone.it('named-checkzone accepts the table as zone files', async () => {
    for (const zone of [ZONES.main, ZONES.reverse]) {
      expect(await namedCheckzone(`${zone}${ORACLE}`, join(started().dir, `${zone}${ORACLE}.zone`))).toBeNull();
    }
  });
});

describe('interface B round trip', () => {
  for (const row of ROWS) {
    it(`${labelOf(row)}: POST answers the body with id and type; GET and the lists show it the same`, async () => {
      const rec = record(row);
      expect(rec).toEqual({ id: expect.any(Number), type: row.type, ...row.body });
      const domainId = ids[row.zone ?? 'main'];
      const got = await api.get(`/v1/domains/${domainId}/${row.type}/${rec.id}`);
      expect(got.status, got.text).toBe(200);
      expect(got.body).toEqual(rec);
      expect((await api.get(`/v1/domains/${domainId}/${row.type}`)).body).toContainEqual(rec);
      const all = await api.get(`/v1/domains/${domainId}/records?type=${row.type}`);
      expect(all.status, all.text).toBe(200);
      expect(all.body).toContainEqual(rec);
    });
  }
});

describe('DNS', () => {
  for (const row of ROWS) {
    needsDigKdig.it(`${labelOf(row)}: dig and kdig print exactly the table's data for the RRset`, async () => {
      record(row);
      expect((await ourDig()).get(rrsetKey(row)), 'dig').toEqual(expectedDig(row));
      expect((await ourKdig()).get(rrsetKey(row)), 'kdig').toEqual(expectedKdig(row));
    });
  }
});

describe('a Knot secondary after one AXFR', () => {
  for (const row of ROWS) {
    needsKdigKnotdKnotc.it(`${labelOf(row)}: knotd answers with the same data as we do`, async () => {
      record(row);
      const theirs = (await knotKdig()).get(rrsetKey(row));
      expect(theirs).toEqual((await ourKdig()).get(rrsetKey(row)));
      expect(theirs).toEqual(expectedKdig(row));
    });
  }
});

describe('zone file export', () => {
  needsNamedCheckzone.it('named-checkzone accepts every zone', async () => {
    await checkAllZones(server);
  });
});

describe('interface A', () => {
  const v3create = (domainId: number, args: V3Args) => v3call(server.base, { api_action: 'domain.resource.create', api_key: key, DomainID: domainId, ...args });
  const v3list = (domainId: number) => v3data(server.base, { api_action: 'domain.resource.list', api_key: key, DomainID: domainId });

  for (const row of ROWS.filter((r) => r.v3)) {
    const v3 = row.v3 as NonNullable<Row['v3']>;
    it(`${row.type}: domain.resource.create, then domain.resource.list shows it`, async () => {
      const a = await v3create(ids.v3, v3.args(row.body));
      expect(a.body?.ERRORARRAY, a.text).toEqual([]);
      const rid = a.body.DATA.ResourceID;
      const one = await v3data(server.base, { api_action: 'domain.resource.list', api_key: key, DomainID: ids.v3, ResourceID: rid });
      expect(one).toEqual([expect.objectContaining({ DOMAINID: ids.v3, RESOURCEID: rid, ...v3.listed })]);
      expect(await v3list(ids.v3)).toContainEqual(one[0]);
    });
  }

  for (const type of NEW_TYPES) {
    it(`${type}: domain.resource.create refuses the type (Linode's v3 API never had it)`, async () => {
      const row = ROWS.find((r) => r.type === type) as Row;
      const domainId = ids[row.zone ?? 'main'];
      for (const Type of [type, type.toLowerCase()]) {
        const a = await v3create(domainId, { Type, Name: `v3-${type.toLowerCase()}`, Target: 'host.example.com' });
        expect(a.status).toBe(200);
        expect(a.body?.ERRORARRAY?.length, a.text).toBeGreaterThan(0);
        expect(a.body?.DATA, a.text).toEqual({});
      }
    });
  }

  it('domain.resource.list leaves out records of the newer types, and shows the others', async () => {
    for (const zone of ['main', 'reverse'] as const) {
      const rows = ROWS.filter((r) => (r.zone ?? 'main') === zone);
      const listed: { TYPE: string; RESOURCEID: number }[] = await v3list(ids[zone]);
      expect(listed.filter((r) => !OLD_TYPES.includes(r.TYPE))).toEqual([]);
      const newIds = rows.filter((r) => NEW_TYPES.includes(r.type)).map((r) => created.get(r)?.body?.id).filter((id) => id !== undefined);
      expect(listed.filter((r) => newIds.includes(r.RESOURCEID))).toEqual([]);
      // Sanity: the same listing shows the Linode types made through interface B.
      const oldIds = rows.filter((r) => OLD_TYPES.includes(r.type)).map((r) => created.get(r)?.body?.id);
      expect(listed.map((r) => r.RESOURCEID)).toEqual(expect.arrayContaining(oldIds));
    }
  });

  it('domain.resource.list with the ResourceID of a record of a newer type does not show it', async () => {
    for (const row of ROWS.filter((r) => NEW_TYPES.includes(r.type))) {
      const rid = record(row).id;
      const a = await v3call(server.base, { api_action: 'domain.resource.list', api_key: key, DomainID: ids[row.zone ?? 'main'], ResourceID: rid });
      expect(a.status).toBe(200);
      // Either "not found" or an empty list: never the record.
      if (a.body.ERRORARRAY.length === 0) expect(a.body.DATA, a.text).toEqual([]);
    }
  });
});

describe('invalid values', () => {
  for (const row of ROWS) {
    for (const inv of row.invalid) {
      const fields = typeof inv.field === 'string' ? [inv.field] : inv.field;
      const status = inv.status ?? [400];
      const what = `${row.type} ${JSON.stringify(inv.set)}`;
      it(`${what}: POST answers ${status.join(' or ')}${fields.length ? ` naming ${fields.join(' or ')}` : ''}`, async () => {
        const zone = row.zone === 'reverse' ? 'reverse' : 'invalid';
        const r = await api.post(`/v1/domains/${ids[zone]}/${row.type}`, { ...row.body, ...inv.set });
        if (r.status === 201) await api.del(`/v1/domains/${ids[zone]}/${row.type}/${r.body.id}`);
        expect(status, r.text).toContain(r.status);
        const named = problemFields(r, r.status);
        if (fields.length > 0) expect(named.some((f) => f !== null && fields.some((want) => f === want || f.startsWith(`${want}.`))), r.text).toBe(true);
        if (inv.reason) expect(r.body.errors.some((e: { reason: string }) => inv.reason?.test(e.reason)), r.text).toBe(true);
      });
      if (row.v3 && inv.v3 !== false) {
        const v3 = row.v3;
        it(`${what}: domain.resource.create answers an error`, async () => {
          const a = await v3call(server.base, { api_action: 'domain.resource.create', api_key: key, DomainID: ids.invalid, ...v3.args({ ...row.body, ...inv.set }) });
          const rid = a.body?.DATA?.ResourceID;
          if (rid !== undefined) await v3call(server.base, { api_action: 'domain.resource.delete', api_key: key, DomainID: ids.invalid, ResourceID: rid });
          expect(a.status).toBe(200);
          expect(a.body?.ERRORARRAY?.length, a.text).toBeGreaterThan(0);
        });
      }
    }
  }
});
