/**
 * The security page in Debian's Chromium, reached as http://localhost:PORT (browsers refuse passkeys on IP
 * origins): a passkey registered through the DevTools protocol's virtual authenticator and used to sign in
 * instead of the password, then removed; TOTP set up with the QR code drawn in the page and a code from
 * oathtool, after which the sign-in form asks for the code; the password changed.
 */
import type { CDPSession, Page } from 'playwright-core';
import { beforeAll, expect } from 'vitest';
import { totpCode } from '../support/oathtool.js';
import { peers } from '../support/peers.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { client } from '../v1/support.js';
import { ensurePanelBuilt, openBrowser, shot, signIn, type Browser } from './browser.js';
import { panelHooks } from './hooks.js';

const needs = peers('chromium', 'oathtool');

const USER = 'sec-user';
const PASSWORD = 'a panel password for security tests';

let server: TestServer;
let browser: Browser;
let page: Page;
let cdp: CDPSession;
/** The panel as a browser reaches it: by host name, the passkeys' relying party. */
let base: string;
let key: string;

beforeAll(async () => {
  await ensurePanelBuilt();
  server = await startTestServer();
  ({ key } = await server.user(USER, PASSWORD));
  base = server.base.replace('127.0.0.1', 'localhost');
  browser = await openBrowser();
  page = browser.page;
  // A platform authenticator that keeps discoverable credentials and verifies its user (a PIN, a fingerprint).
  cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
}, 180_000);

panelHooks(() => browser, async () => server?.close());

async function openSecurity(): Promise<void> {
  await page.getByRole('link', { name: 'Security' }).click();
  await page.getByRole('heading', { name: 'Security', level: 1 }).waitFor();
}

async function signOut(): Promise<void> {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
}

const api = () => client(server.base, key);

needs.describe('security page', { timeout: 120_000 }, () => {
  needs.it('registers a passkey, signs in with it instead of the password, and removes it', async () => {
    await signIn(page, base, USER, PASSWORD);
    await openSecurity();
    await page.getByLabel('Passkey name').fill('laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByRole('row', { name: /laptop/ }).waitFor();
    await shot(page, 'security-passkey');
    const stored = (await api().get('/v1/me/passkeys')).body;
    expect(stored).toEqual([{ id: expect.any(Number), name: 'laptop', created: expect.any(String), last_used: null }]);

    await signOut();
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    // Signed in, on the page the address names (this one).
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    expect(await page.locator('nav .who').innerText()).toBe(USER);
    expect((await api().get('/v1/me/passkeys')).body[0].last_used).not.toBeNull();
    // The session is a key like any other: it lists the account's keys.
    expect((await api().get('/v1/keys')).body.some((k: { label: string }) => /passkey/.test(k.label))).toBe(true);

    await openSecurity();
    await page.getByRole('button', { name: 'Remove passkey laptop' }).click();
    await page.getByRole('button', { name: 'Yes, remove' }).click();
    await page.getByText('You have no passkeys yet.').waitFor();
    expect((await api().get('/v1/me/passkeys')).body).toEqual([]);

    // The authenticator still holds it, but the server no longer knows it: refused.
    await signOut();
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.getByRole('alert').filter({ hasText: /Authentication failed/ }).waitFor();
  });

  needs.it('sets up TOTP with a QR code drawn in the page, then asks for the code at sign-in', async () => {
    await signIn(page, base, USER, PASSWORD);
    await openSecurity();
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    const qr = page.getByRole('img', { name: /QR code/ });
    await qr.waitFor();
    expect(await qr.getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    const secret = await page.getByLabel('TOTP secret').innerText();
    await page.getByLabel('Code from the app').fill(totpCode(secret));
    await page.getByRole('button', { name: 'Turn on' }).click();
    const codes = page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem');
    await codes.first().waitFor();
    expect(await codes.count()).toBe(10);
    await shot(page, 'security-totp');
    await page.getByRole('button', { name: 'Done, hide it' }).click();
    await page.getByText('Recovery codes left: 10').waitFor();

    await signOut();
    await page.getByLabel('User name').fill(USER);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByText('enter the code from your authenticator app').waitFor();
    await page.getByLabel(/^Code/).fill(totpCode(secret, 1));
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
  });

  needs.it('changes the password', async () => {
    await openSecurity();
    await page.getByLabel('Current password').fill(PASSWORD);
    await page.getByLabel('New password').fill('the new panel password');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Your password is changed.').waitFor();
    expect((await client(server.base).post('/v1/keys', { username: USER, password: PASSWORD })).status).toBe(401);
  });
});
