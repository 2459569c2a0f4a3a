/**
 * The keys page in Debian's Chromium: a scoped key made with the domain picker, read-only, record names
 * and types and subnets; the key then does exactly what its scope allows through the API, the table shows
 * the scope, a bad network is refused at its field, and nothing is logged to the browser's console.
 */
import { beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../support/server.js';
import { client } from '../v1/support.js';
import { ensurePanelBuilt, openBrowser, shot, signIn, type Browser } from './browser.js';
import { panelHooks } from './hooks.js';
import { peers } from '../support/peers.js';

// Every test drives the panel in Chromium, opened before them all.
const needsChromium = peers('chromium');

const USER = 'keys-user';
const PASSWORD = 'a panel password for key tests';

let server: TestServer;
let browser: Browser;
let page: Page;
/** Requests answered with an error status, as "METHOD path status". */
const failedRequests: string[] = [];
const ids = { acme: 0, other: 0 };

beforeAll(async () => {
  await ensurePanelBuilt();
  server = await startTestServer();
  const { key } = await server.user(USER, PASSWORD);
  const api = client(server.base, key);
  ids.acme = (await api.post('/v1/domains', { domain: 'acme-keys.test', soa: 'hostmaster@acme-keys.test' })).body.id;
  ids.other = (await api.post('/v1/domains', { domain: 'other-keys.test', soa: 'hostmaster@other-keys.test' })).body.id;
  browser = await openBrowser();
  page = browser.page;
  page.on('response', (r) => {
    if (r.status() >= 400) failedRequests.push(`${r.request().method()} ${new URL(r.url()).pathname} ${r.status()}`);
  });
}, 180_000);

panelHooks(() => browser, async () => server?.close());

async function openKeysPage(): Promise<void> {
  await signIn(page, server.base, USER, PASSWORD);
  await page.getByRole('link', { name: 'API keys' }).click();
  await page.getByRole('heading', { name: 'API keys' }).waitFor();
}

needsChromium.describe('keys page', { timeout: 120_000 }, () => {
  it('makes a key limited to one domain and to TXT records at _acme-challenge, from given networks', async () => {
    await openKeysPage();
    const form = page.getByRole('form', { name: 'Create an API key' });
    await form.getByLabel('Label').fill('certbot');
    await form.getByRole('checkbox', { name: 'acme-keys.test' }).check();
    await form.getByLabel('Record names it may write').fill('_acme-challenge');
    await form.getByLabel('Record types it may write').fill('txt');
    // A bad network first: refused next to its field, nothing made.
    await form.getByLabel('Networks it works from').fill('127.0.0.0/8, not-a-network');
    await form.getByLabel('Your password').fill(PASSWORD);
    await form.getByRole('button', { name: 'Create key' }).click();
    const subnets = form.getByLabel('Networks it works from');
    await subnets.and(page.locator('[aria-invalid="true"]')).waitFor();
    expect(await form.innerText()).toContain("'not-a-network' is not an IP address or network");
    await subnets.fill('127.0.0.0/8');
    await form.getByLabel('Your password').fill(PASSWORD);
    await form.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByLabel('The new API key');
    await shown.waitFor();
    const key = await shown.innerText();
    await shot(page, 'keys-scoped');

    // The table shows what the key may do.
    const row = page.getByRole('row', { name: /certbot/ });
    expect(await row.innerText()).toMatch(/domains: acme-keys\.test; records only at _acme-challenge of type TXT; from 127\.0\.0\.0\/8/);

    // And the key does exactly that.
    const api = client(server.base, key);
    expect((await api.get('/v1/keys')).body.find((k: { label: string }) => k.label === 'certbot').scope).toEqual({
      domains: [ids.acme],
      records: { names: ['_acme-challenge'], types: ['TXT'] },
      subnets: ['127.0.0.0/8'],
    });
    expect((await api.post(`/v1/domains/${ids.acme}/TXT`, { name: '_acme-challenge', text: 'token' })).status).toBe(201);
    const refused = await api.post(`/v1/domains/${ids.acme}/A`, { name: '_acme-challenge', address: '192.0.2.1' });
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0].field).toBe('scope.records.types');
    expect((await api.get(`/v1/domains/${ids.other}`)).status).toBe(404);
    expect((await api.get('/v1/domains')).body.map((d: { id: number }) => d.id)).toEqual([ids.acme]);
    await page.getByRole('button', { name: 'Done, hide it' }).click();
    await shown.waitFor({ state: 'detached' });
  });

  it('makes a read-only key with the keyboard alone', async () => {
    const form = page.getByRole('form', { name: 'Create an API key' });
    await form.getByLabel('Label').focus();
    await page.keyboard.type('monitoring');
    // Tab through to the read-only box and tick it with the space bar.
    for (let i = 0; i < 30; i++) {
      await page.keyboard.press('Tab');
      if ((await page.evaluate('document.activeElement?.getAttribute("name")')) === 'read_only') break;
    }
    await page.keyboard.press('Space');
    expect(await form.getByLabel('Read-only').isChecked()).toBe(true);
    await form.getByLabel('Your password').focus();
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    const shown = page.getByLabel('The new API key');
    await shown.waitFor();
    const api = client(server.base, await shown.innerText());
    expect((await api.get('/v1/domains')).body).toHaveLength(2);
    const refused = await api.post('/v1/domains', { domain: 'nope.test', soa: 'hostmaster@nope.test' });
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0].field).toBe('scope.read_only');
    expect(await page.getByRole('row', { name: /monitoring/ }).innerText()).toContain('read-only');
  });

  it('shows the base URL of each API the keys work on, the PowerDNS API among them', async () => {
    const table = page.getByRole('table', { name: 'Where to use a key: the base URL of each API' });
    expect(await table.locator('tbody th').allInnerTexts()).toEqual(['Interface A (Linode API v3)', 'Interface B', 'PowerDNS API', 'Linode API v4']);
    expect(await table.locator('tbody td:nth-of-type(1) code').allInnerTexts()).toEqual([`${server.base}/`, `${server.base}/v1`, `${server.base}/api/v1`, `${server.base}/v4`]);
  });

  it('logged no script errors, and the only failed request is the refused key', () => {
    expect(browser.errors()).toEqual([]);
    expect(failedRequests).toEqual(['POST /v1/keys 400']);
  });
});
