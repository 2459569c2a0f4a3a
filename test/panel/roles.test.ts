/**
 * Member roles in the panel (issue 30), in Debian's Chromium with the role matrix's account
 * (test/security/role-matrix.ts): a viewer reads a domain's records, and the account's mirrors, TSIG keys and
 * health checks, without the controls that change them (the server refuses them anyway: test/security); an editor
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
  it('a viewer reads records, DNSSEC, the zone file, mirrors, TSIG keys and health checks without the controls that change them', async () => {
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

    // Nor on the account's other pages: mirrors, TSIG keys and health checks are listed without their forms and buttons.
    for (const [path, heading, form] of [
      ['mirrors', 'Zone mirrors', 'Create a zone mirror'],
      ['tsigkeys', 'TSIG keys', 'Create a TSIG key'],
      ['healthchecks', 'Health checks', 'Create a health check'],
    ] as const) {
      await page.goto(`${m.server.base}/manager/#/${path}`);
      await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
      await page.getByRole('main').getByText('Your role is viewer').waitFor();
      expect(await page.getByRole('form', { name: form }).count(), path).toBe(0);
      expect(await page.getByRole('main').getByRole('button', { name: /^(Delete|Deactivate|Activate|Create)/ }).count(), path).toBe(0);
    }
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
