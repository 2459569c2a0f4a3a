/**
 * The records table of a domain in Debian's Chromium: one record of every hosted type added through the one
 * "add a record" form, then found again with the type filter, the search and the column sorting.
 */
import { beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { dig } from '../dns/support.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { client } from '../v1/support.js';
import { ensurePanelBuilt, openBrowser, openDomain, signIn, type Browser } from './browser.js';
import { panelHooks } from './hooks.js';
import { peers } from '../support/peers.js';

// Every test drives the panel in Chromium, opened before them all.
const needsChromium = peers('chromium');
const needsDig = peers('dig');

const USER = 'records-user';
const PASSWORD = 'a records password for tests';
const ZONE = 'records-e2e.test';
const HEX64 = 'AB'.repeat(32);

/** A record of every hosted type, as a user types it: field label → text (NS before the DS it needs). */
const RECORDS: [type: string, fields: Record<string, string>][] = [
  ['A', { Name: 'www', Address: '192.0.2.10' }],
  ['AAAA', { Name: 'www', Address: '2001:db8::10' }],
  ['ALIAS', { Name: 'cdn', Target: 'cdn.example.net' }],
  ['CAA', { Tag: 'issue', Value: 'letsencrypt.org' }],
  ['CNAME', { Name: 'alias', Target: `www.${ZONE}` }],
  ['NS', { Name: 'sub', Nameserver: 'ns1.elsewhere.example' }],
  ['DS', { Name: 'sub', 'Key tag': '12345', Algorithm: '13', 'Digest type': '2', Digest: HEX64 }],
  ['HTTPS', { 'Svc priority': '1', 'Target name': '.', 'Svc params': '{"alpn": ["h2"]}' }],
  ['MX', { Priority: '10', 'Mail server': `mail.${ZONE}` }],
  ['NAPTR', { Name: 'sip', Order: '100', Preference: '10', Flags: 'S', Services: 'SIP+D2U', Replacement: `_sip._udp.${ZONE}` }],
  ['PTR', { Name: 'ptr', Ptrdname: 'host.example' }],
  ['SRV', { Service: 'sip', Protocol: 'udp', Port: '5060', Target: `sip.${ZONE}` }],
  ['SSHFP', { Name: 'www', Algorithm: '4', 'Fingerprint type': '2', Fingerprint: HEX64 }],
  ['SVCB', { Name: '_dns', 'Svc priority': '1', 'Target name': `dns.${ZONE}`, 'Svc params': '{"alpn": ["dot"]}' }],
  ['TLSA', { Name: '_443._tcp.www', 'Certificate usage': '3', Selector: '1', 'Matching type': '1', 'Certificate association data': HEX64 }],
  ['TXT', { Name: 'note', Text: 'hello from the panel' }],
];

let server: TestServer;
let browser: Browser;
let page: Page;
let domainId: number;
let key: string;

beforeAll(async () => {
  await ensurePanelBuilt();
  server = await startTestServer();
  ({ key } = await server.user(USER, PASSWORD));
  domainId = (await client(server.base, key).post('/v1/domains', { domain: ZONE, soa: `hostmaster@${ZONE}` })).body.id;
  browser = await openBrowser();
  page = browser.page;
  await signIn(page, server.base, USER, PASSWORD);
  await openDomain(page, server.base, domainId, ZONE);
}, 180_000);

panelHooks(() => browser, async () => server?.close());

const table = () => page.getByRole('table', { name: /^Records of/ });
/** A field of the form by its label, marked "(required)" or not. */
const field = (label: string) => page.getByRole('form', { name: 'Add a record' }).getByLabel(new RegExp(`^${label}( \\(required\\))?$`));
/** The value cell showing `text` (other cells name the record in their buttons' labels too). */
const valueCell = (text: string) => table().locator('td[data-label="Value"]', { hasText: text });
const column = (label: string) => table().locator(`tbody td[data-label="${label}"]`).allInnerTexts();

needsChromium.describe('records table', { timeout: 120_000 }, () => {
  needsDig.it('adds a record of every type through the one form, whose fields follow the chosen type', async () => {
    const form = page.getByRole('form', { name: 'Add a record' });
    for (const [type, fields] of RECORDS) {
      await form.getByLabel('Type', { exact: true }).selectOption(type);
      // The form shows this type's fields only: SRV's Service is not offered for an A record.
      if (type === 'A') expect(await field('Service').count()).toBe(0);
      for (const [label, text] of Object.entries(fields)) await field(label).fill(text);
      await form.getByRole('button', { name: `Add ${type} record` }).click();
      // The row appears and the form is empty again, ready for the next record.
      const count = RECORDS.findIndex(([t]) => t === type) + 1;
      await page.getByRole('status').filter({ hasText: new RegExp(`^${count} records?$`) }).waitFor();
      expect(await form.locator('.field-error').count()).toBe(0);
    }
    const stored = (await client(server.base, key).get(`/v1/domains/${domainId}/records`)).body as { type: string }[];
    expect(stored.map((r) => r.type).sort()).toEqual(RECORDS.map(([t]) => t).sort());
    // dig cuts long hex into words.
    expect((await dig(server, `_443._tcp.www.${ZONE}`, 'TLSA')).answer.map((r) => r.data.replace(/ /g, ''))).toEqual([`311${HEX64}`]);
    expect((await dig(server, `_sip._udp.${ZONE}`, 'SRV')).answer.map((r) => r.data)).toEqual([`10 5 5060 sip.${ZONE}.`]);
    expect(await column('Type')).toHaveLength(RECORDS.length);
  });

  it('filters the table by type', async () => {
    await page.getByRole('search').getByLabel('Type').selectOption('MX');
    expect(await column('Type')).toEqual(['MX']);
    expect(await column('Value')).toEqual([expect.stringContaining(`mail.${ZONE}`)]);
    await page.getByRole('search').getByLabel('Type').selectOption('');
    expect(await column('Type')).toHaveLength(RECORDS.length);
  });

  it('searches by name or by value', async () => {
    const search = page.getByRole('searchbox', { name: 'Search' });
    await search.fill('www');
    // By name (www's A, AAAA, SSHFP, TLSA) and by value (the CNAME pointing at www).
    expect((await column('Type')).sort()).toEqual(['A', 'AAAA', 'CNAME', 'SSHFP', 'TLSA']);
    await search.fill('LETSENCRYPT');
    expect(await column('Type')).toEqual(['CAA']);
    await search.fill('no such thing');
    await page.getByText('No record matches.').waitFor();
    // The filter and the search combine.
    await search.fill('www');
    await page.getByRole('search').getByLabel('Type').selectOption('AAAA');
    expect(await column('Value')).toEqual(['2001:db8::10']);
    await page.getByRole('search').getByLabel('Type').selectOption('');
    await search.fill('');
  });

  it('sorts by a column, ascending then descending', async () => {
    // By name first: @ (the apex) before the rest.
    expect((await column('Name'))[0]).toBe('@');
    const byType = table().getByRole('columnheader', { name: 'Type' });
    await byType.getByRole('button').click();
    const types = RECORDS.map(([t]) => t).sort();
    expect(await byType.getAttribute('aria-sort')).toBe('ascending');
    expect(await column('Type')).toEqual(types);
    await byType.getByRole('button').click();
    expect(await byType.getAttribute('aria-sort')).toBe('descending');
    expect(await column('Type')).toEqual([...types].reverse());
    // Back to names, then the other way round: the apex last.
    const byName = table().getByRole('columnheader', { name: 'Name' });
    await byName.getByRole('button').click();
    expect(await byType.getAttribute('aria-sort')).toBeNull();
    expect(await byName.getAttribute('aria-sort')).toBe('ascending');
    await byName.getByRole('button').click();
    expect(await byName.getAttribute('aria-sort')).toBe('descending');
    const names = await column('Name');
    expect(names[0]).toBe('www');
    expect(names.at(-1)).toBe('@');
  });

  needsDig.it('edits a record from the table and deletes one after asking', async () => {
    await table().getByRole('button', { name: /^Edit TXT record note/ }).click();
    const form = table().getByRole('form', { name: 'Edit TXT record' });
    await form.getByLabel(/^Text/).fill('changed from the table');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await valueCell('changed from the table').waitFor();
    expect((await dig(server, `note.${ZONE}`, 'TXT')).answer.map((r) => r.data)).toEqual(['"changed from the table"']);

    await table().getByRole('button', { name: /^Delete PTR record ptr/ }).click();
    await table().getByRole('button', { name: 'Yes, delete' }).click();
    await valueCell('host.example').waitFor({ state: 'detached' });
    expect((await dig(server, `ptr.${ZONE}`, 'PTR')).status).toBe('NXDOMAIN');
  });
  needsDig.it('keeps the several strings of a TXT record: typed as a JSON list, shown as one, and kept when its TTL is edited', async () => {
    const form = page.getByRole('form', { name: 'Add a record' });
    await form.getByLabel('Type', { exact: true }).selectOption('TXT');
    await field('Name').fill('spf');
    await field('Text').fill('["v=spf1 a", "-all"]');
    await form.getByRole('button', { name: 'Add TXT record' }).click();
    await valueCell('["v=spf1 a","-all"]').waitFor();
    expect((await dig(server, `spf.${ZONE}`, 'TXT')).answer.map((r) => r.data)).toEqual(['"v=spf1 a" "-all"']);

    await table().getByRole('button', { name: /^Edit TXT record spf/ }).click();
    const edit = table().getByRole('form', { name: 'Edit TXT record' });
    await edit.getByLabel(/^TTL/).fill('7200');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await edit.waitFor({ state: 'detached' });
    const answer = (await dig(server, `spf.${ZONE}`, 'TXT')).answer;
    expect(answer.map((r) => [r.data, r.ttl])).toEqual([['"v=spf1 a" "-all"', 7200]]);
  });
});
