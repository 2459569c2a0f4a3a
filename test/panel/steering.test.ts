/**
 * Steering in the panel, in Debian's Chromium: the health checks page (a check made there, its status shown),
 * and a record's steering fields (the check it follows, weight, subnets), made, shown by the API, taken off.
 */
import { beforeAll, expect } from 'vitest';
import type { Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../support/server.js';
import { client, type Client } from '../v1/support.js';
import { ensurePanelBuilt, openBrowser, openDomain, signIn, type Browser } from './browser.js';
import { panelHooks } from './hooks.js';
import { peers } from '../support/peers.js';

const needsChromium = peers('chromium');

const USER = 'steering-user';
const PASSWORD = 'a steering password for tests';
const ZONE = 'steering-e2e.test';

let server: TestServer;
let browser: Browser;
let page: Page;
let api: Client;
let domainId: number;

beforeAll(async () => {
  await ensurePanelBuilt();
  server = await startTestServer({ healthcheckAllow: ['127.0.0.0/8'] });
  const { key } = await server.user(USER, PASSWORD);
  api = client(server.base, key);
  domainId = (await api.post('/v1/domains', { domain: ZONE, soa: `hostmaster@${ZONE}` })).body.id;
  browser = await openBrowser();
  page = browser.page;
  await signIn(page, server.base, USER, PASSWORD);
}, 180_000);

panelHooks(() => browser, async () => server?.close());

needsChromium.describe('steering in the panel', { timeout: 120_000 }, () => {
  needsChromium.it('makes a health check on its page, which shows its status', async () => {
    await page.getByRole('link', { name: 'Health checks' }).click();
    await page.getByRole('heading', { name: 'Health checks', level: 1 }).waitFor();
    const form = page.getByRole('form', { name: 'Create a health check' });
    await form.getByLabel('Type', { exact: true }).selectOption('tcp');
    await form.getByLabel(/^Address/).fill('10.0.0.1');
    await form.getByLabel(/^Port/).fill('9');
    await form.getByRole('button', { name: 'Create health check' }).click();
    // The operator's rules, explained beside the field.
    await form.getByText(/--healthcheck-allow/).waitFor();
    await form.getByLabel(/^Address/).fill('127.0.0.1');
    await form.getByRole('button', { name: 'Create health check' }).click();
    const table = page.getByRole('table', { name: 'Your health checks' });
    await table.getByText('tcp 127.0.0.1:9').waitFor();
    // Nothing listens on port 9: after its probes the check is down (fall 3, every 10 s, so "unknown" first).
    expect(await table.locator('tbody td', { hasText: /^(unknown|down)$/ }).count()).toBe(1);
    const checks = (await api.get('/v1/healthchecks')).body as { id: number; address: string }[];
    expect(checks.map((c) => c.address)).toEqual(['127.0.0.1']);
  });

  needsChromium.it("gives a record steering in its form, and takes it off again", async () => {
    const [check] = (await api.get('/v1/healthchecks')).body as { id: number }[];
    await openDomain(page, server.base, domainId, ZONE);
    const form = page.getByRole('form', { name: 'Add a record' });
    await form.getByLabel('Type', { exact: true }).selectOption('A');
    await form.getByLabel(/^Name/).fill('www');
    await form.getByLabel(/^Address/).fill('192.0.2.10');
    await form.getByLabel('Health check').selectOption(String(check?.id));
    await form.getByLabel('Weight').fill('3');
    await form.getByLabel('Subnets').fill('10.0.0.0/8\n2001:db8::/32');
    await form.getByRole('button', { name: 'Add A record' }).click();
    await page.getByRole('status').filter({ hasText: /^1 record$/ }).waitFor();
    const [rec] = (await api.get(`/v1/domains/${domainId}/A`)).body as { id: number; steering?: unknown }[];
    expect(rec?.steering).toEqual({ healthcheck: check?.id, weight: 3, subnets: ['10.0.0.0/8', '2001:db8::/32'] });

    // A bad subnet is explained beside the steering fields.
    await form.getByLabel(/^Name/).fill('bad');
    await form.getByLabel(/^Address/).fill('192.0.2.11');
    await form.getByLabel('Subnets').fill('10.1.2.3/8');
    await form.getByRole('button', { name: 'Add A record' }).click();
    await form.getByText(/did you mean "10\.0\.0\.0\/8"/).waitFor();
    await form.getByLabel('Subnets').fill('');

    await page.getByRole('button', { name: /^Edit A record www/ }).click();
    const edit = page.getByRole('form', { name: 'Edit A record' });
    await edit.getByLabel('Health check').selectOption('');
    await edit.getByLabel('Weight').fill('');
    await edit.getByLabel('Subnets').fill('');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await edit.waitFor({ state: 'detached' });
    const [after] = (await api.get(`/v1/domains/${domainId}/A`)).body as { steering?: unknown }[];
    expect(after?.steering).toBeUndefined();
  });
});
