/**
 * Zone files in the panel, in Debian's Chromium: import by pasting, by uploading a file and by a transfer
 * from a real knotd primary, each previewed (the API's dry run) and written only when applied; a file's bad
 * lines and a refused server shown as the API names them; the export downloaded.
 * The primary listens on 127.0.38.2, which this server's --import-allow lets through.
 */
import { beforeAll, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { dig } from '../dns/support.js';
import { startPrimary, type Knot } from '../support/knot.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { client } from '../v1/support.js';
import { ensurePanelBuilt, openBrowser, openDomain, signIn, type Browser } from './browser.js';
import { panelHooks } from './hooks.js';
import { peers } from '../support/peers.js';

// Every test drives the panel in Chromium, opened before them all.
const needsChromiumKnot = peers('chromium', 'knotd', 'knotc');
const needsDig = peers('dig');

const USER = 'zonefile-user';
const PASSWORD = 'a zone file password for tests';
const ZONE = 'import-e2e.test';
const PRIMARY = '127.0.38.2';

let server: TestServer;
let browser: Browser;
let page: Page;
let primary: Knot;
let api: ReturnType<typeof client>;
let domainId: number;

beforeAll(async () => {
  await ensurePanelBuilt();
  server = await startTestServer({ importAllow: ['127.0.38.0/24'] });
  api = client(server.base, (await server.user(USER, PASSWORD)).key);
  domainId = (await api.post('/v1/domains', { domain: ZONE, soa: `hostmaster@${ZONE}` })).body.id;
  await api.post(`/v1/domains/${domainId}/A`, { name: 'old', address: '192.0.2.99' });
  primary = await startPrimary(
    PRIMARY,
    ZONE,
    `$ORIGIN ${ZONE}.
$TTL 3600
@ IN SOA ns1.oldprovider.test. admin.${ZONE}. 2024070101 7200 1800 1209600 300
@ IN NS ns1.oldprovider.test.
ftp IN A 192.0.2.21
@ IN TXT "moved by transfer"
`,
    9, // NOTIFY to the discard port: this domain is no mirror of it
  );
  browser = await openBrowser();
  page = browser.page;
  await signIn(page, server.base, USER, PASSWORD);
  await openDomain(page, server.base, domainId, ZONE);
}, 180_000);

panelHooks(() => browser, async () => {
  await primary?.stop();
  await server?.close();
});

const section = () => page.getByRole('region', { name: 'Zone file' });
const form = () => section().getByRole('form', { name: 'Import a zone file' });
const records = async () =>
  ((await api.get(`/v1/domains/${domainId}/records`)).body as { type: string; name: string }[]).map((r) => `${r.type} ${r.name}`).sort();

needsChromiumKnot.describe('zone files in the panel', { timeout: 120_000 }, () => {
  it('lists each bad line of a pasted file with its number, and writes nothing', async () => {
    await form().getByLabel('Paste the zone file').check();
    await form().getByLabel('Zone file', { exact: true }).fill('www A 192.0.2.300\nok A 192.0.2.1\nftp CH A 192.0.2.1\n$INCLUDE other.zone\n');
    await form().getByRole('button', { name: 'Preview the import' }).click();
    const alert = section().getByRole('alert');
    await alert.waitFor();
    const text = await alert.innerText();
    expect(text).toContain('3 bad lines; nothing was written');
    expect(text).toMatch(/Line 1: an IPv4 address is expected/);
    expect(text).toMatch(/Line 3: the class CH is not taken/);
    expect(text).toMatch(/Line 4: \$INCLUDE is not taken/);
    expect(text).not.toMatch(/Line 2/);
    expect(await section().getByRole('button', { name: 'Apply the import' }).count()).toBe(0);
    expect(await records()).toEqual(['A old']);
  });

  needsDig.it('previews a pasted file as records added and removed, and writes it only when applied', async () => {
    await form()
      .getByLabel('Zone file', { exact: true })
      .fill(`$ORIGIN ${ZONE}.\n$TTL 1h\nwww A 192.0.2.10\n    AAAA 2001:db8::10\n@ MX 10 mail\nmail 300 A 192.0.2.25\n`);
    await form().getByRole('button', { name: 'Preview the import' }).click();
    const preview = section().getByText('The import would make these changes');
    await preview.waitFor();
    expect(await preview.innerText()).toMatch(/4 records added, 1 removed, 0 with another TTL, 0 unchanged/);
    const diff = section().getByRole('table', { name: 'Records the import changes' });
    expect(await diff.locator('tbody tr').allInnerTexts()).toHaveLength(5);
    await diff.getByRole('row', { name: /removed\s+old\s+A\s+192\.0\.2\.99/ }).waitFor();
    await diff.getByRole('row', { name: /added\s+www\s+AAAA\s+2001:db8::10/ }).waitFor();
    // A dry run: nothing written yet.
    expect(await records()).toEqual(['A old']);

    await section().getByRole('button', { name: 'Apply the import' }).click();
    await section().getByRole('status').filter({ hasText: 'Imported: 4 records added, 1 removed' }).waitFor();
    expect(await records()).toEqual(['A mail', 'A www', 'AAAA www', 'MX ']);
    expect((await dig(server, `www.${ZONE}`, 'AAAA')).answer.map((r) => r.data)).toEqual(['2001:db8::10']);
    // The records table shows what the import wrote.
    await page.getByRole('table', { name: /^Records of/ }).locator('td[data-label="Value"]', { hasText: '192.0.2.25' }).waitFor();
  });

  it('previews an uploaded file, and a cancelled preview writes nothing', async () => {
    await form().getByLabel('Upload a zone file').check();
    await form()
      .getByLabel('Zone file to upload')
      .setInputFiles({ name: 'upload.zone', mimeType: 'text/plain', buffer: Buffer.from(`$ORIGIN ${ZONE}.\nwww 3600 A 192.0.2.10\n`) });
    await form().getByText('Chosen: upload.zone').waitFor();
    await form().getByRole('button', { name: 'Preview the import' }).click();
    const preview = section().getByText('The import would make these changes');
    await preview.waitFor();
    expect(await preview.innerText()).toMatch(/0 records added, 3 removed, 0 with another TTL, 1 unchanged/);
    await section().getByRole('button', { name: 'Cancel' }).click();
    await preview.waitFor({ state: 'detached' });
    expect(await records()).toEqual(['A mail', 'A www', 'AAAA www', 'MX ']);
  });

  it('refuses a server the service may not connect to, next to the field, before any connection', async () => {
    await form().getByLabel('Transfer from a server (AXFR)').check();
    const serverField = form().getByLabel(/^Server/);
    await serverField.fill('10.0.0.53');
    await form().getByRole('button', { name: 'Preview the import' }).click();
    await form().locator('[aria-invalid="true"][name="server"]').waitFor();
    expect(await form().locator('.field-error').innerText()).toMatch(/10\.0\.0\.53|private|not allowed|refused/i);
  });

  needsDig.it('imports a zone transferred from a knotd primary after its preview', async () => {
    await form().getByLabel(/^Server/).fill(PRIMARY);
    await form().getByLabel('Port').fill(String(primary.port));
    await form().getByRole('button', { name: 'Preview the import' }).click();
    const diff = section().getByRole('table', { name: 'Records the import changes' });
    await diff.getByRole('row', { name: /added\s+ftp\s+A\s+192\.0\.2\.21/ }).waitFor();
    await diff.getByRole('row', { name: /added\s+ns1\.oldprovider\.test|added\s+@\s+NS/ }).waitFor();
    expect(await records()).toEqual(['A mail', 'A www', 'AAAA www', 'MX ']);
    await section().getByRole('button', { name: 'Apply the import' }).click();
    await section().getByRole('status').filter({ hasText: 'Imported: 3 records added, 4 removed' }).waitFor();
    expect(await records()).toEqual(['A ftp', 'NS ', 'TXT ']);
    expect((await dig(server, ZONE, 'TXT')).answer.map((r) => r.data)).toEqual(['"moved by transfer"']);
  });

  it('downloads the zone file as the API exports it', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), section().getByRole('button', { name: `Download ${ZONE}.zone` }).click()]);
    expect(download.suggestedFilename()).toBe(`${ZONE}.zone`);
    const file = readFileSync(await download.path(), 'utf8');
    expect(file).toBe((await api.get(`/v1/domains/${domainId}/zonefile`)).text);
    expect(file).toContain(`ftp.${ZONE}.`);
  });
});
