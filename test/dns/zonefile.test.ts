/**
 * The master-file export (src/model/zonefile.ts): a zone holding every registry type, awkward TXT values, a
 * wildcard and a delegation is accepted by named-checkzone, and holds the same RRsets our server sends by
 * AXFR (both read through named-compilezone into BIND's canonical text, then compared line by line).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { zoneContent } from '../../src/model/zone.js';
import { zoneFile } from '../../src/model/zonefile.js';
import { RECORD_TYPE_NAMES } from '../../src/model/records/index.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { checkAllZones, namedCheckzone } from '../support/zonefile.js';
import { client } from '../v1/support.js';
import { createDomain, createRecord } from './support.js';
import { peers } from '../support/peers.js';

const needsNamedCheckzone = peers('named-checkzone');
const needsKdigNamedCompilezone = peers('kdig', 'named-compilezone');

const run = promisify(execFile);
const ZONE = 'export.test';
/** Source address of our AXFR client, in the zone's axfr list. */
const CLIENT = '127.0.32.1';
const SHA256 = 'CA978112CA1BBDCAFAC231B39A23DC4DA786EFF8147C4E72B9807785AFEE48BB';
const LONG = 'v=long;' + 'é'.repeat(150) + 'x'.repeat(300); // 757 bytes: three strings, a cut between é's bytes avoided

let server: TestServer;
let dir: string;
let domainId: number;

beforeAll(async () => {
  server = await startTestServer();
  dir = mkdtempSync(join(tmpdir(), 'zonehost-zonefile-test-'));
  const { key } = await server.user('exporter');
  domainId = await createDomain(server.base, key, ZONE, { axfr_ips: CLIENT });
  const records: Record<string, string | number>[] = [
    { Type: 'A', Name: '', Target: '192.0.2.1' },
    { Type: 'A', Name: 'www', Target: '192.0.2.2' },
    { Type: 'A', Name: 'mail', Target: '192.0.2.3' },
    { Type: 'AAAA', Name: 'www', Target: '2001:db8::1' },
    { Type: 'CNAME', Name: 'alias', Target: `www.${ZONE}` },
    { Type: 'MX', Name: '', Target: `mail.${ZONE}`, Priority: 10 },
    { Type: 'MX', Name: '', Target: 'mx.elsewhere.example', Priority: 20 },
    // Delegation with glue.
    { Type: 'NS', Name: 'sub', Target: `ns.sub.${ZONE}` },
    { Type: 'A', Name: 'ns.sub', Target: '192.0.2.53' },
    { Type: 'SRV', Name: '_sip._tcp', Target: `www.${ZONE}`, Priority: 5, Weight: 7, Port: 5060 },
    { Type: 'TXT', Name: '', Target: 'say "hi" \\ back\\slash; (paren) @ $ORIGIN' },
    { Type: 'TXT', Name: 'uni', Target: 'grüße 日本 🎉 tab\there' },
    { Type: 'TXT', Name: 'long', Target: LONG },
    { Type: 'TXT', Name: 'trail', Target: 'ends with a backslash \\' },
    { Type: 'A', Name: '*', Target: '192.0.2.9' },
    { Type: 'TXT', Name: '*.wild', Target: 'wildcard text' },
    { Type: 'CAA', Name: '', Tag: 'issue', Target: 'letsencrypt.org; validationmethods=dns-01' },
    { Type: 'CAA', Name: '', Tag: 'issuewild', Target: ';' },
    { Type: 'CAA', Name: 'www', Tag: 'iodef', Target: 'mailto:security@example.com' },
    // Quotes and backslashes are allowed in parameter values (RFC 8659 4.2) and must be escaped in the file.
    { Type: 'CAA', Name: 'www', Tag: 'issue', Target: 'ca.example.net; id="a\\b"' },
  ];
  for (const r of records) await createRecord(server.base, key, domainId, r);
  // Types interface A never had, through interface B.
  const api = client(server.base, key);
  const newer: [string, object][] = [
    ['TLSA', { name: '_443._tcp.www', certificate_usage: 3, selector: 1, matching_type: 1, certificate_association_data: SHA256 }],
    ['SSHFP', { name: 'www', algorithm: 4, fingerprint_type: 2, fingerprint: SHA256 }],
    ['PTR', { name: 'ptr', ptrdname: `www.${ZONE}` }],
    ['NAPTR', { name: 'sip', order: 100, preference: 10, flags: 'U', services: 'E2U+sip', regexp: '!^\\+1(.*)$!sip:\\1@"x".example.com!' }],
    ['NAPTR', { name: 'sip', order: 100, preference: 20, flags: 'S', services: 'SIP+D2U', replacement: `_sip._udp.${ZONE}` }],
    ['SVCB', { name: '_dns', svc_priority: 1, target_name: `www.${ZONE}`, svc_params: { mandatory: ['alpn'], alpn: ['dot', 'h\\2,x'], port: 853, ipv6hint: ['2001:db8::53'], key667: 'a b\\"c' } }],
    // At the delegation.
    ['DS', { name: 'sub', key_tag: 12345, algorithm: 13, digest_type: 2, digest: '2E7D2C03A9507AE265ECF5B5356885A53393A2029D241394997265A1A25AEFC6' }],
    ['HTTPS', { name: '', svc_priority: 1, target_name: '.', svc_params: { alpn: ['h2', 'h3'], 'no-default-alpn': true, ipv4hint: ['192.0.2.1'], ech: 'AEX+DQBBpQAgACB/' } }],
    ['HTTPS', { name: 'shop', svc_priority: 0, target_name: `www.${ZONE}` }],
  ];
  for (const [type, body] of newer) {
    const r = await api.post(`/v1/domains/${domainId}/${type}`, body);
    if (r.status !== 201) throw new Error(`cannot create the ${type} record: ${r.text}`);
  }
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A master file read and written back by named-compilezone: BIND's canonical text, sorted. */
async function canonical(file: string): Promise<string[]> {
  const out = join(dir, `${Math.random().toString(36).slice(2)}.canonical`);
  await run('named-compilezone', ['-i', 'local', '-s', 'full', '-f', 'text', '-F', 'text', '-o', out, ZONE, file]);
  return readFileSync(out, 'utf8').split('\n').filter((l) => l && !l.startsWith(';')).map((l) => l.split(/\s+/).join(' ')).sort();
}

async function exported(): Promise<string> {
  const domain = await server.services.store.domainById(domainId);
  if (!domain) throw new Error('domain gone');
  return zoneFile(zoneContent(domain, await server.services.store.listRecords(domainId), server.nameservers));
}

describe('zone file export', () => {
  needsNamedCheckzone.it('writes every registry type, quoted TXT strings, a wildcard and a delegation; named-checkzone accepts it', async () => {
    const text = await exported();
    const types = new Set(text.split('\n').filter(Boolean).map((l) => l.split('\t')[3]));
    // Every type BIND knows: named-checkzone reads this file (ALIAS, PowerDNS's, has tests of its own: alias.test.ts).
    for (const t of RECORD_TYPE_NAMES.filter((n) => n !== 'ALIAS')) expect(types, `the test zone lacks a ${t} record`).toContain(t);
    expect(text).toContain(`${ZONE}.\t`);
    expect(text).toContain(`*.${ZONE}.\t`);
    expect(text).toContain('"say \\"hi\\" \\\\ back\\\\slash; (paren) @ $ORIGIN"');
    expect(text).toContain('"ends with a backslash \\\\"');
    expect(text).toContain('tab\\009here');
    expect(text).toContain(`${ZONE}.\t86400\tIN\tCAA\t0 issue "letsencrypt.org; validationmethods=dns-01"\n`);
    expect(text).toContain('\tCAA\t0 issuewild ";"\n');
    expect(text).toContain('\tCAA\t0 issue "ca.example.net; id=\\"a\\\\b\\""\n');
    expect(text).toContain(`_443._tcp.www.${ZONE}.\t86400\tIN\tTLSA\t3 1 1 ${SHA256}\n`);
    expect(text).toContain(`www.${ZONE}.\t86400\tIN\tSSHFP\t4 2 ${SHA256}\n`);
    expect(text).toContain('\tNAPTR\t100 10 "U" "E2U+sip" "!^\\\\+1(.*)$!sip:\\\\1@\\"x\\".example.com!" .\n');
    // The long value spans three quoted strings of at most 255 bytes.
    expect(text).toMatch(/long\.export\.test\.\t\d+\tIN\tTXT\t"v=long;[^"]*" "[^"]*" "[^"]*"\n/);
    const file = join(dir, 'export.zone');
    writeFileSync(file, text);
    expect(await namedCheckzone(ZONE, file)).toBeNull();
  });

  needsKdigNamedCompilezone.it('holds the same RRsets our server sends by AXFR', async () => {
    const file = join(dir, 'same.zone');
    writeFileSync(file, await exported());
    const port = String(server.dnsAddress?.port);
    const { stdout } = await run('kdig', ['-p', port, '@127.0.0.1', '-b', CLIENT, '+noall', '+answer', '+time=5', 'AXFR', ZONE], { timeout: 20_000 });
    const axfr = join(dir, 'axfr.zone');
    // AXFR ends with the SOA again; a master file holds it once.
    const lines = stdout.split('\n').filter((l) => l.trim() && !l.startsWith(';'));
    writeFileSync(axfr, lines.slice(0, -1).join('\n') + '\n');
    expect(lines.length).toBeGreaterThan(RECORD_TYPE_NAMES.length);
    expect(await canonical(file)).toEqual(await canonical(axfr));
  });

  needsNamedCheckzone.it('the shared check covers every master zone of the server', async () => {
    await expect(checkAllZones(server)).resolves.toBeUndefined();
  });
});
