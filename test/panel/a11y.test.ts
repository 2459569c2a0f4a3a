/**
 * Accessibility of every page of the panel, in Debian's Chromium: axe-core (injected into the page) finds no
 * serious or critical violation at 1440 px and at 375 px, on each page in the states users see (forms,
 * errors, a new key's secret, a signed zone, an import preview), and the new forms work with the keyboard
 * alone. No page logs a console error (a missing favicon included).
 */
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../support/server.js';
import { client } from '../v1/support.js';
import { ensurePanelBuilt, openBrowser, signIn, type Browser } from './browser.js';
import { panelHooks } from './hooks.js';
import { peers } from '../support/peers.js';

// Every test drives the panel in Chromium, opened before them all.
const needsChromium = peers('chromium');

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const USER = 'a11y-user';
const PASSWORD = 'an accessibility password for tests';
const ZONE = 'a11y-e2e.test';
const WIDTHS = [1440, 375];

let server: TestServer;
let browser: Browser;
let page: Page;
let domainId: number;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  await ensurePanelBuilt();
  server = await startTestServer();
  api = client(server.base, (await server.user(USER, PASSWORD)).key);
  domainId = (await api.post('/v1/domains', { domain: ZONE, soa: `hostmaster@${ZONE}` })).body.id;
  for (const [type, body] of [
    ['A', { name: 'www', address: '192.0.2.10' }],
    ['MX', { mail_server: `mail.${ZONE}` }],
    ['TXT', { text: 'v=spf1 -all' }],
    ['SRV', { service: 'sip', protocol: 'tcp', port: 5060, target: `sip.${ZONE}` }],
  ] as const)
    await api.post(`/v1/domains/${domainId}/${type}`, body);
  await api.put(`/v1/domains/${domainId}/dnssec`, { enabled: true });
  await api.post('/v1/zonemirrors', { domain: 'mirror-a11y.test', masters: ['127.0.0.1'] });
  browser = await openBrowser();
  page = browser.page;
}, 180_000);

panelHooks(() => browser, async () => server?.close());

interface Violation {
  id: string;
  impact: string;
  help: string;
  nodes: { target: string[] }[];
}

/** axe-core's serious and critical violations on the page as it is now, at each width. */
async function violations(): Promise<string[]> {
  const found: string[] = [];
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    // Evaluated through the debugging protocol, which the page's Content-Security-Policy does not govern.
    if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(AXE);
    const result = (await page.evaluate('axe.run(document, { resultTypes: ["violations"] })')) as { violations: Violation[] };
    for (const v of result.violations)
      if (v.impact === 'serious' || v.impact === 'critical') found.push(`${width}px ${v.impact} ${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  }
  await page.setViewportSize({ width: 1440, height: 900 });
  return found;
}

/** Presses Tab until the focused element is the one `test` (evaluated in the page on `el`) picks, as a keyboard user would move. */
async function tabTo(test: string, most = 120): Promise<void> {
  for (let i = 0; i < most; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(`(el => !!el && (${test}))(document.activeElement)`)) return;
  }
  throw new Error(`Tab never reached ${test}`);
}

needsChromium.describe('accessibility of every page', { timeout: 120_000 }, () => {
  it('sign-in page, also with its error shown', async () => {
    await page.goto(`${server.base}/manager/`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await violations()).toEqual([]);
    await page.getByLabel('User name').fill(USER);
    await page.getByLabel('Password').fill('wrong');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('alert').waitFor();
    expect(await violations()).toEqual([]);
  });

  it('domains page', async () => {
    await signIn(page, server.base, USER, PASSWORD);
    await page.getByRole('link', { name: ZONE }).waitFor();
    expect(await violations()).toEqual([]);
  });

  it('(the check itself) reports a field without a label at both widths', async () => {
    await page.evaluate('document.querySelector("main").append(Object.assign(document.createElement("input"), { id: "unlabelled" }))');
    const found = await violations();
    expect(found).toEqual([expect.stringMatching(/^1440px critical label: .*#unlabelled/), expect.stringMatching(/^375px critical label: .*#unlabelled/)]);
    await page.evaluate('document.getElementById("unlabelled").remove()');
  });

  it('domain page: records table, add form with an error, edit form, DNSSEC with its DS, zone file', async () => {
    await page.goto(`${server.base}/manager/#/domains/${domainId}`);
    await page.getByRole('table', { name: /^Records of/ }).waitFor();
    await page.getByRole('region', { name: /^DNSSEC/ }).getByLabel('DS record').first().waitFor();
    expect(await violations()).toEqual([]);
    const form = page.getByRole('form', { name: 'Add a record' });
    await form.getByLabel(/^Address/).fill('not an address');
    await form.getByRole('button', { name: 'Add A record' }).click();
    await form.locator('.field-error').waitFor();
    await page.getByRole('button', { name: /^Edit MX record/ }).click();
    expect(await violations()).toEqual([]);
  });

  it('domain page: a zone import preview and its problems', async () => {
    const section = page.getByRole('region', { name: 'Zone file' });
    await section.getByLabel('Zone file', { exact: true }).fill('www A 192.0.2.300\n');
    await section.getByRole('button', { name: 'Preview the import' }).click();
    await section.getByRole('alert').waitFor();
    expect(await violations()).toEqual([]);
    await section.getByLabel('Zone file', { exact: true }).fill(`www A 192.0.2.11\n`);
    await section.getByRole('button', { name: 'Preview the import' }).click();
    await section.getByRole('button', { name: 'Apply the import' }).waitFor();
    expect(await violations()).toEqual([]);
    await section.getByLabel('Transfer from a server (AXFR)').check();
    expect(await violations()).toEqual([]);
  });

  it('zone mirrors page', async () => {
    await page.getByRole('link', { name: 'Zone mirrors' }).click();
    await page.getByRole('row', { name: /mirror-a11y\.test/ }).waitFor();
    expect(await violations()).toEqual([]);
  });

  it('API keys page, with a new key shown', async () => {
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    expect(await violations()).toEqual([]);
    const form = page.getByRole('form', { name: 'Create an API key' });
    await form.getByLabel('Label').fill('deploy script');
    await form.getByLabel('Your password').fill(PASSWORD);
    await form.getByRole('button', { name: 'Create key' }).click();
    await page.getByLabel('The new API key').waitFor();
    expect(await violations()).toEqual([]);
  });

  it('TSIG keys page, with a new key and its snippets shown', async () => {
    await page.getByRole('link', { name: 'TSIG keys' }).click();
    const form = page.getByRole('form', { name: 'Create a TSIG key' });
    await form.getByLabel('Key name').fill(`acme.${ZONE}`);
    await form.getByLabel('Domains').selectOption({ label: ZONE });
    await form.getByRole('button', { name: 'Create TSIG key' }).click();
    await page.getByLabel('nsupdate', { exact: true }).waitFor();
    expect(await violations()).toEqual([]);
  });

  it('security page, also with the TOTP set-up (its QR code) shown', async () => {
    await page.getByRole('link', { name: 'Security' }).click();
    await page.getByRole('heading', { name: 'Passkeys' }).waitFor();
    expect(await violations()).toEqual([]);
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    await page.getByRole('img', { name: /QR code/ }).waitFor();
    expect(await violations()).toEqual([]);
  });

  it('health checks page, with a check and a problem beside a field', async () => {
    await api.post('/v1/healthchecks', { type: 'https', address: '192.0.2.10', host: `www.${ZONE}` });
    await page.getByRole('link', { name: 'Health checks' }).click();
    await page.getByRole('table', { name: 'Your health checks' }).waitFor();
    const form = page.getByRole('form', { name: 'Create a health check' });
    await form.getByLabel(/^Address/).fill('127.0.0.1');
    await form.getByRole('button', { name: 'Create health check' }).click();
    await form.getByText(/loopback/).waitFor();
    expect(await violations()).toEqual([]);
  });

  it('members page, with an invitation link shown, and the invitation page', async () => {
    await page.getByRole('link', { name: 'Members', exact: true }).click();
    const form = page.getByRole('form', { name: 'Invite a member' });
    await form.getByLabel('User name').fill('a11y-member');
    await form.getByRole('button', { name: 'Invite' }).click();
    const link = await page.getByLabel('The invitation link').innerText();
    expect(await violations()).toEqual([]);
    await page.goto(link);
    await page.getByRole('heading', { name: 'Accept the invitation' }).waitFor();
    expect(await violations()).toEqual([]);
  });

  it('domain not found page', async () => {
    await page.goto(`${server.base}/manager/#/domains/999999`);
    await page.getByRole('heading', { name: 'Domain not found' }).waitFor();
    expect(await violations()).toEqual([]);
  });
});

needsChromium.describe('the new forms with the keyboard alone', { timeout: 120_000 }, () => {
  it('adds a record of a chosen type, sorts the table and previews an import', async () => {
    await page.goto(`${server.base}/manager/#/domains/${domainId}`);
    await page.reload();
    const table = page.getByRole('table', { name: /^Records of/ });
    await table.waitFor();
    // The type of the one add form, chosen with the arrow keys; its fields follow.
    await tabTo('el.name === "type" && el.closest("form")?.getAttribute("aria-label") === "Add a record"');
    await page.keyboard.press('ArrowDown'); // AAAA
    await page.getByRole('form', { name: 'Add a record' }).getByRole('button', { name: 'Add AAAA record' }).waitFor();
    await page.keyboard.press('Tab');
    await page.keyboard.type('v6');
    await page.keyboard.press('Tab');
    await page.keyboard.type('2001:db8::6');
    await page.keyboard.press('Enter');
    await table.locator('td[data-label="Value"]', { hasText: '2001:db8::6' }).waitFor();
    expect((await api.get(`/v1/domains/${domainId}/AAAA`)).body).toMatchObject([{ name: 'v6', address: '2001:db8::6' }]);

    // Sorting: the column's button, pressed with Enter.
    await page.getByRole('columnheader', { name: 'Type' }).getByRole('button').focus();
    await page.keyboard.press('Enter');
    expect(await page.getByRole('columnheader', { name: 'Type' }).getAttribute('aria-sort')).toBe('ascending');

    // A zone import: the text typed, previewed with Enter from the button, applied with the keyboard.
    await page.getByRole('region', { name: 'Zone file' }).getByLabel('Paste the zone file').focus();
    await page.keyboard.press('Tab');
    await page.keyboard.type('www A 192.0.2.12');
    await tabTo('el.textContent === "Preview the import"');
    await page.keyboard.press('Enter');
    await tabTo('el.textContent === "Apply the import"');
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'Imported:' }).waitFor();
    expect((await api.get(`/v1/domains/${domainId}/records`)).body).toMatchObject([{ type: 'A', name: 'www', address: '192.0.2.12' }]);
  });
});
