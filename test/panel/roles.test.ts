/**
 * Member roles in the panel (issue 30), in Debian's Chromium with the role matrix's account
 * (test/security/role-matrix.ts): a viewer reads a domain's records without the controls that change them, and
 * a change it forces anyway (the domain's settings) is refused by the server, the refusal shown; an editor
 * limited to one domain lists only that domain, may change its records, and finds no other.
 */
import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { peers } from '../support/peers.js';
import { PASSWORD, setUpRoleMatrix, USERNAMES, type RoleMatrix } from '../security/role-matrix.js';
import { ensurePanelBuilt, openBrowser, openDomain, shot, signIn, type Browser } from './browser.js';
import { panelHooks } from './hooks.js';

const needsChromium = peers('chromium');

let m: RoleMatrix;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  await ensurePanelBuilt();
  m = await setUpRoleMatrix();
  for (const [id, address] of [[m.ids.main, '192.0.2.10'], [m.ids.other, '192.0.2.20']] as const) {
    expect((await m.owner.post(`/v1/domains/${id}/A`, { name: 'www', address })).status).toBe(201);
  }
  browser = await openBrowser();
  page = browser.page;
}, 180_000);

panelHooks(() => browser, async () => m?.server.close());

const signOut = () => page.getByRole('button', { name: 'Sign out' }).click();
const records = () => page.getByRole('region', { name: 'Records' });

needsChromium.describe('roles in the panel', { timeout: 120_000 }, () => {
  it('a viewer reads records, DNSSEC and the zone file without the controls that change them; a change it forces elsewhere is refused and the refusal shown', async () => {
    await signIn(page, m.server.base, USERNAMES.viewer, PASSWORD);
    await page.getByRole('main').getByText('main.example').first().waitFor();
    expect(await page.getByRole('form', { name: 'Create a domain' }).count()).toBe(0);
    await openDomain(page, m.server.base, m.ids.main, 'main.example');
    await records().getByText('192.0.2.10').waitFor();
    await records().getByText('Your role is viewer').waitFor();
    expect(await records().getByRole('button', { name: /^(Edit|Delete|Add)/ }).count()).toBe(0);
    expect(await records().getByRole('form').count()).toBe(0);
    const dnssec = page.getByRole('region', { name: /^DNSSEC/ });
    await dnssec.getByText(/sign/i).first().waitFor();
    expect(await dnssec.getByRole('checkbox').count()).toBe(0);
    expect(await dnssec.getByRole('button').count()).toBe(0);
    const zonefile = page.getByRole('region', { name: 'Zone file' });
    await zonefile.getByRole('button', { name: /^Download/ }).waitFor();
    expect(await page.getByRole('form', { name: 'Import a zone file' }).count()).toBe(0);
    expect(await page.getByText('Domain settings').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Delete domain' }).count()).toBe(0);
    await shot(page, 'roles-viewer');

    // Forms it may not use elsewhere are still there (mirrors, TSIG keys, health checks): the server refuses.
    await page.goto(`${m.server.base}/manager/#/mirrors`);
    const mirror = page.getByRole('form', { name: 'Create a zone mirror' });
    await mirror.getByLabel('Zone name').fill('mirrored.example');
    await mirror.getByLabel('Primary servers').fill('192.0.2.53');
    await mirror.getByRole('button', { name: 'Create zone mirror' }).click();
    await mirror.getByRole('alert').waitFor();
    expect(await mirror.getByRole('alert').innerText()).toMatch(/read-only|cannot|role/i);
    await signOut();
  });

  it('an editor limited to one domain lists only it, may change its records, and finds no other', async () => {
    await signIn(page, m.server.base, USERNAMES.limited, PASSWORD);
    await page.getByRole('main').getByText('main.example').first().waitFor();
    const listed = await page.getByRole('main').innerText();
    expect(listed).toContain('main.example');
    expect(listed).not.toContain('other.example');
    await openDomain(page, m.server.base, m.ids.main, 'main.example');
    await records().getByRole('button', { name: /^Add A record/ }).waitFor();
    expect(await records().getByRole('button', { name: /^Edit A record www/ }).count()).toBe(1);

    await page.goto(`${m.server.base}/manager/#/domains/${m.ids.other}`);
    await page.getByRole('heading', { name: 'Domain not found' }).waitFor();
    expect(await page.getByRole('main').innerText()).not.toContain('192.0.2.20');
    await signOut();
  });
});
