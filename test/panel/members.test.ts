/**
 * The members page in Debian's Chromium: the owner invites a member limited to one domain and gets the
 * invitation link once; the member opens the link signed out, sets a password, signs in and sees only that
 * domain, and cannot invite anyone; the owner then changes the member's role and removes them, and the
 * member's key stops working.
 */
import { beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../support/server.js';
import { client, type Client } from '../v1/support.js';
import { ensurePanelBuilt, openBrowser, shot, signIn, type Browser } from './browser.js';
import { panelHooks } from './hooks.js';
import { peers } from '../support/peers.js';

const needsChromium = peers('chromium');

const OWNER = 'members-owner';
const PASSWORD = 'a panel password for member tests';
const MEMBER_PASSWORD = 'the invited member chose this';

let server: TestServer;
let browser: Browser;
let page: Page;
let owner: Client;
const ids = { shared: 0, hidden: 0 };

beforeAll(async () => {
  await ensurePanelBuilt();
  server = await startTestServer();
  owner = client(server.base, (await server.user(OWNER, PASSWORD)).key);
  ids.shared = (await owner.post('/v1/domains', { domain: 'shared-members.test', soa: 'hostmaster@shared-members.test' })).body.id;
  ids.hidden = (await owner.post('/v1/domains', { domain: 'hidden-members.test', soa: 'hostmaster@hidden-members.test' })).body.id;
  browser = await openBrowser();
  page = browser.page;
}, 180_000);

panelHooks(() => browser, async () => server?.close());

async function openMembers(username: string, password: string): Promise<void> {
  await signIn(page, server.base, username, password);
  await page.getByRole('link', { name: 'Members', exact: true }).click();
  await page.getByRole('heading', { name: 'Members', level: 1 }).waitFor();
}

const signOut = () => page.getByRole('button', { name: 'Sign out' }).click();
const pat = async () => (await owner.get('/v1/members')).body.find((m: { username: string }) => m.username === 'pat');

needsChromium.describe('members page', { timeout: 120_000 }, () => {
  it('invites a member limited to one domain; the member accepts through the link and sees only that domain', async () => {
    await openMembers(OWNER, PASSWORD);
    const form = page.getByRole('form', { name: 'Invite a member' });
    await form.getByLabel('User name').fill('pat');
    await form.getByLabel('Role').selectOption('viewer');
    await form.getByRole('checkbox', { name: 'shared-members.test' }).check();
    await form.getByRole('button', { name: 'Invite' }).click();
    const shown = page.getByLabel('The invitation link');
    await shown.waitFor();
    const link = await shown.innerText();
    expect(link).toMatch(new RegExp(`^${server.base}/manager/#/invitation/.+`));
    await shot(page, 'members-invited');
    expect(await page.getByRole('row', { name: /pat/ }).innerText()).toMatch(/viewer\s+shared-members\.test/);
    expect(await pat()).toMatchObject({ role: 'viewer', domains: [ids.shared] });

    await signOut();
    await page.goto(link);
    await page.getByRole('heading', { name: 'Accept the invitation' }).waitFor();
    await page.getByLabel('New password').fill(MEMBER_PASSWORD);
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByRole('heading', { name: 'Welcome, pat' }).waitFor();
    await page.getByRole('link', { name: 'Sign in' }).click();

    await signIn(page, server.base, 'pat', MEMBER_PASSWORD);
    await page.getByRole('main').getByText('shared-members.test').first().waitFor();
    const domains = await page.getByRole('main').innerText();
    expect(domains).toContain('shared-members.test');
    expect(domains).not.toContain('hidden-members.test');
    // A viewer may read the members, not invite: the server's refusal is shown.
    await page.getByRole('link', { name: 'Members', exact: true }).click();
    const invite = page.getByRole('form', { name: 'Invite a member' });
    await invite.getByLabel('User name').fill('sneaky');
    await invite.getByRole('button', { name: 'Invite' }).click();
    await invite.getByRole('alert').waitFor();
    expect(await invite.getByRole('alert').innerText()).toMatch(/read-only|cannot/);
    expect((await owner.get('/v1/members')).body.map((m: { username: string }) => m.username)).not.toContain('sneaky');
    await signOut();
  });

  it("changes the member's role and domains, then removes the member, whose key stops working", async () => {
    const key = (await client(server.base).post('/v1/keys', { username: 'pat', password: MEMBER_PASSWORD })).body.key;
    await openMembers(OWNER, PASSWORD);
    await page.getByRole('button', { name: 'Change pat' }).click();
    const change = page.getByRole('form', { name: 'Change pat' });
    await change.getByLabel('Role').selectOption('editor');
    await change.getByRole('checkbox', { name: 'shared-members.test' }).uncheck();
    await change.getByRole('button', { name: 'Save' }).click();
    await change.waitFor({ state: 'detached' });
    expect(await pat()).toMatchObject({ role: 'editor', domains: null });
    expect((await client(server.base, key).get('/v1/domains')).body).toHaveLength(2);

    await page.getByRole('button', { name: 'Remove pat' }).click();
    await page.getByRole('button', { name: 'Yes, remove' }).click();
    await page.getByRole('row', { name: /pat/ }).waitFor({ state: 'detached' });
    expect(await pat()).toBeUndefined();
    expect((await client(server.base, key).get('/v1/domains')).status).toBe(401);
  });
});
