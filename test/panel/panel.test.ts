/**
 * The control panel end to end: a user in Debian's Chromium signs in, manages a domain and its records,
 * and the DNS server answers what the panel made. Screenshots of every page go to test-artifacts/panel/.
 */
import { beforeAll, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { dig } from '../dns/support.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { client } from '../v1/support.js';
import { ensurePanelBuilt, openBrowser, shot, type Browser } from './browser.js';
import { panelHooks } from './hooks.js';
import { peers } from '../support/peers.js';

// Every test drives the panel in Chromium, opened before them all.
const needsChromium = peers('chromium');
const needsDig = peers('dig');
// nsupdate runs the snippet the panel shows.
const needsDigNsupdate = peers('dig', 'nsupdate');

const run = promisify(execFile);
const USER = 'panel-user';
const PASSWORD = 'a panel password for tests';
const ZONE = 'panel-e2e.test';

let server: TestServer;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  await ensurePanelBuilt();
  server = await startTestServer();
  await server.user(USER, PASSWORD);
  browser = await openBrowser();
  page = browser.page;
}, 180_000);

panelHooks(() => browser, async () => server?.close());

const addresses = async (name: string): Promise<string[]> => (await dig(server, name, 'A')).answer.map((r) => r.data).sort();
/** The one "add a record" form, its type chosen. */
async function addForm(type: string) {
  const form = page.getByRole('form', { name: 'Add a record' });
  await form.getByLabel('Type', { exact: true }).selectOption(type);
  return form;
}
/** The domain's records table. */
const records = () => page.getByRole('table', { name: /^Records of/ });
/** The value cell showing `text` (the actions cell names the record in its buttons' labels too). */
const valueCell = (text: string) => records().locator('td[data-label="Value"]', { hasText: text });
/** The API's reason shown under a form control once it appears: marked invalid, tied to it by aria-describedby. */
async function fieldError(control: Locator): Promise<string> {
  await control.and(page.locator('[aria-invalid="true"]')).waitFor();
  const described = (await control.getAttribute('aria-describedby')) ?? '';
  return page.locator(`[id="${described.split(' ').find((id) => id.endsWith('-err'))}"]`).innerText();
}
const sessionKey = (): Promise<string | undefined> => page.evaluate("JSON.parse(sessionStorage.getItem('zonehost.session') ?? 'null')?.key");
/** Text and name attribute of the element that has the keyboard focus. */
const focused = (): Promise<{ text: string; name: string | null }> =>
  page.evaluate('({ text: document.activeElement?.textContent ?? "", name: document.activeElement?.getAttribute("name") ?? null })');

// A browser on a busy two-core machine: generous limits (they only bound a failure's wait).
needsChromium.describe('control panel', { timeout: 120_000 }, () => {
  it('is served at /manager/ with its own assets, while / still answers interface A', async () => {
    const res = await fetch(`${server.base}/manager/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
    const html = await res.text();
    // Every script and style comes from this server.
    const urls = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(urls.length).toBeGreaterThan(0);
    for (const u of urls) expect(u).toMatch(/^\/manager\/(assets\/|favicon\.(svg|ico)$)/);
    // The icon, also where browsers look for it on the origin's other pages.
    for (const icon of ['/favicon.ico', '/manager/favicon.ico', '/manager/favicon.svg']) {
      const r = await fetch(`${server.base}${icon}`);
      expect(r.status, icon).toBe(200);
      expect(r.headers.get('content-type'), icon).toMatch(/^image\//);
    }
    const v3 = await (await fetch(`${server.base}/?api_action=test.echo`)).json();
    expect(v3).toMatchObject({ ACTION: 'test.echo', DATA: expect.anything(), ERRORARRAY: expect.any(Array) });
  });

  it('signs in with user name and password, which creates a labelled expiring key', async () => {
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(`${server.base}/manager/`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await shot(page, '01-sign-in');
    // A wrong password is refused in words.
    await page.getByLabel('User name').fill(USER);
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').innerText()).toMatch(/password|credentials|authenticat/i);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Domains' }).waitFor();
    const key = await sessionKey();
    expect(key).toBeTruthy();
    const keys = (await client(server.base, key).get('/v1/keys')).body as { label: string; expires: string | null }[];
    const mine = keys.find((k) => k.label.startsWith('control panel'));
    expect(mine?.expires).not.toBeNull();
    // Nothing was loaded from anywhere but this server.
    for (const u of requests) expect(u.startsWith(server.base)).toBe(true);
  });

  it('creates a domain', async () => {
    const form = page.getByRole('form', { name: 'Create a domain' });
    await form.getByLabel('Domain name').fill(ZONE);
    await form.getByLabel('SOA e-mail').fill(`hostmaster@${ZONE}`);
    await form.getByLabel('AXFR allow-list').fill('192.0.2.53, 2001:db8::53');
    await shot(page, '02-domains');
    await form.getByRole('button', { name: 'Create domain' }).click();
    await page.getByRole('heading', { name: new RegExp(ZONE) }).waitFor();
    const list = (await client(server.base, await sessionKey()).get(`/v1/domains?name=${ZONE}`)).body;
    expect(list).toMatchObject([{ domain: ZONE, soa: `hostmaster@${ZONE}`, status: 'active', axfr: ['192.0.2.53', '2001:db8::53'] }]);
  });

  it('adds an A record that the DNS server then answers', async () => {
    const form = await addForm('A');
    await form.getByLabel('Name').fill('www');
    await form.getByLabel('Address').fill('192.0.2.10');
    await form.getByRole('button', { name: 'Add A record' }).click();
    await valueCell('192.0.2.10').waitFor();
    expect(await addresses(`www.${ZONE}`)).toEqual(['192.0.2.10']);
  });

  needsDig.it('adds an MX and an SRV record with their own fields', async () => {
    const mx = await addForm('MX');
    await mx.getByLabel('Mail server').fill(`mail.${ZONE}`);
    await mx.getByLabel('Priority').fill('5');
    await mx.getByRole('button', { name: 'Add MX record' }).click();
    await valueCell(`mail.${ZONE}`).waitFor();

    const srv = await addForm('SRV');
    await srv.getByLabel('Service').fill('sip');
    await srv.getByLabel('Protocol').fill('tcp');
    await srv.getByLabel('Port').fill('5060');
    await srv.getByLabel('Target').fill(`sip.${ZONE}`);
    await srv.getByRole('button', { name: 'Add SRV record' }).click();
    await valueCell('5060').waitFor();

    expect((await dig(server, ZONE, 'MX')).answer.map((r) => r.data)).toEqual([`5 mail.${ZONE}.`]);
    expect((await dig(server, `_sip._tcp.${ZONE}`, 'SRV')).answer.map((r) => r.data)).toEqual([`10 5 5060 sip.${ZONE}.`]);
  });

  needsDig.it('adds an HTTPS record, its parameters written as JSON and their problems shown under them', async () => {
    const form = await addForm('HTTPS');
    await form.getByLabel('Svc priority').fill('1');
    await form.getByLabel('Target name').fill('.');
    const params = form.getByLabel('Svc params');
    await params.fill('{"alpn": ["h2", "h3"], "port": 70000}');
    await form.getByRole('button', { name: 'Add HTTPS record' }).click();
    expect(await fieldError(params)).toMatch(/65535/);

    await params.fill('{"alpn": ["h2", "h3"], "port": 8443}');
    await form.getByRole('button', { name: 'Add HTTPS record' }).click();
    await valueCell('{"alpn":["h2","h3"],"port":8443}').waitFor();
    expect((await dig(server, ZONE, 'HTTPS')).answer.map((r) => r.data)).toEqual(['1 . alpn="h2,h3" port=8443']);
  });

  needsDig.it('shows a clear inline error for an invalid IP address, and creates nothing', async () => {
    const form = await addForm('A');
    await form.getByLabel('Name').fill('bad');
    const address = form.getByLabel('Address');
    await address.fill('192.0.2.300');
    await form.getByRole('button', { name: 'Add A record' }).click();
    // The reason from the API's problem document sits under the field and is tied to it.
    expect(await fieldError(address)).toMatch(/IPv4|address/i);
    await shot(page, '03-invalid-address');
    expect((await dig(server, `bad.${ZONE}`, 'A')).status).toBe('NXDOMAIN');
    await address.fill('');
  });

  it('edits the A record, and the DNS server answers the new address', async () => {
    await records().getByRole('button', { name: /^Edit A record www/ }).click();
    const form = records().getByRole('form', { name: 'Edit A record' });
    await form.getByLabel('Address').fill('192.0.2.20');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await valueCell('192.0.2.20').waitFor();
    expect(await addresses(`www.${ZONE}`)).toEqual(['192.0.2.20']);
  });

  it('shows the DNS queries per minute on the domain page', async () => {
    await page.reload();
    const chart = page.getByRole('img', { name: /DNS quer/ });
    await chart.waitFor();
    const label = (await chart.getAttribute('aria-label')) ?? '';
    // The digs above: at least the A, MX, SRV and NXDOMAIN queries.
    expect(Number(/(\d+) DNS quer/.exec(label)?.[1])).toBeGreaterThanOrEqual(4);
    await shot(page, '04-domain-records');
    await page.setViewportSize({ width: 375, height: 800 });
    await shot(page, '05-domain-records-375px');
    await page.setViewportSize({ width: 1440, height: 1000 });
  });

  needsDig.it('deletes the A record after asking, and the DNS server stops answering it', async () => {
    await records().getByRole('button', { name: 'Delete A record www 192.0.2.20' }).click();
    const confirm = records().getByRole('group', { name: /Delete this A record/ });
    await confirm.waitFor();
    // Focus is on Cancel: Enter alone does not delete.
    expect((await focused()).text).toBe('Cancel');
    await confirm.getByRole('button', { name: 'Yes, delete' }).click();
    await valueCell('192.0.2.20').waitFor({ state: 'detached' });
    expect((await dig(server, `www.${ZONE}`, 'A')).status).toBe('NXDOMAIN');
  });

  it('turns DNSSEC on from the domain page, shows the DS record to copy and the key states, starts a rollover and turns it off', async () => {
    const api = client(server.base, await sessionKey());
    const [{ id }] = (await api.get(`/v1/domains?name=${ZONE}`)).body;
    const section = page.getByRole('region', { name: /^DNSSEC/ });
    await section.getByText('The zone is not signed').waitFor();
    await section.getByLabel('Algorithm').selectOption('ED25519');
    // The box follows the server's answer, not the click: click, then wait for what the answer shows.
    await section.getByLabel('Sign this zone (DNSSEC)').click();
    const ds = section.getByLabel('DS record');
    await ds.waitFor();
    const on = (await api.get(`/v1/domains/${id}/dnssec`)).body;
    expect(on).toMatchObject({ status: 'signed', algorithm: 'ED25519', keys: [{ state: 'active', algorithm: 15 }] });
    expect(await ds.innerText()).toBe(on.keys[0].ds[0]);
    await section.getByRole('cell', { name: String(on.keys[0].key_tag), exact: true }).waitFor();
    await shot(page, '09-dnssec');

    await section.getByRole('button', { name: 'Start key rollover' }).click();
    await section.getByText('A rollover is under way.').waitFor();
    const rolling = (await api.get(`/v1/domains/${id}/dnssec`)).body;
    expect(rolling.keys.map((k: { state: string }) => k.state)).toEqual(['active', 'incoming']);
    await section.getByRole('cell', { name: /^incoming/ }).waitFor();

    await section.getByLabel('Sign this zone (DNSSEC)').click();
    await section.getByText('turning off').waitFor();
    expect((await api.get(`/v1/domains/${id}/dnssec`)).body).toMatchObject({ enabled: false, status: 'unsigning' });
  });

  it('shows zone mirrors with their transfer state', async () => {
    await page.getByRole('link', { name: 'Zone mirrors' }).click();
    await page.getByRole('heading', { name: 'Zone mirrors' }).waitFor();
    const form = page.getByRole('form', { name: 'Create a zone mirror' });
    await form.getByLabel('Zone name').fill('mirror-e2e.test');
    await form.getByLabel('Primary servers').fill('not-an-address');
    await form.getByRole('button', { name: 'Create zone mirror' }).click();
    await form.locator('.field-error').waitFor();
    await form.getByLabel('Primary servers').fill('127.0.0.1');
    await form.getByLabel('Transfer over TLS').check();
    // Over TLS, the primaries' certificate can be verified: for a name, by the system's CAs when none are given.
    await form.getByLabel('Verify the certificate for').fill('primary.example.net');
    await form.getByRole('button', { name: 'Create zone mirror' }).click();
    const row = page.getByRole('row', { name: /mirror-e2e\.test/ });
    await row.waitFor();
    expect(await row.innerText()).toMatch(/127\.0\.0\.1\s*TLS, verified for primary\.example\.net/);
    const api = client(server.base, (await sessionKey()) ?? '');
    const mirrors = (await api.get('/v1/zonemirrors')).body as { domain: string; tls: boolean; tls_verify: unknown }[];
    expect(mirrors.find((m) => m.domain === 'mirror-e2e.test')).toMatchObject({ tls: true, tls_verify: { name: 'primary.example.net', ca: null } });
    await shot(page, '06-zone-mirrors');
  });

  it('creates an API key shown once, and revokes it', async () => {
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    const form = page.getByRole('form', { name: 'Create an API key' });
    await form.getByLabel('Label').fill('deploy script');
    await form.getByLabel('Expires after').selectOption({ label: '30 days' });
    await form.getByLabel('Your password').fill(PASSWORD);
    await form.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByLabel('The new API key');
    await shown.waitFor();
    const key = await shown.innerText();
    await shot(page, '07-api-keys');
    expect((await client(server.base, key).get('/v1/domains')).status).toBe(200);
    const row = page.getByRole('row', { name: /deploy script/ });
    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.getByRole('button', { name: 'Yes, revoke' }).click();
    await row.waitFor({ state: 'detached' });
    expect((await client(server.base, key).get('/v1/domains')).status).toBe(401);
  });

  needsDigNsupdate.it('creates a TSIG key whose secret is shown once with nsupdate, certbot and cert-manager snippets that work, and deletes it', async () => {
    await page.getByRole('link', { name: 'TSIG keys' }).click();
    await page.getByRole('heading', { name: 'TSIG keys' }).waitFor();
    const form = page.getByRole('form', { name: 'Create a TSIG key' });
    // A bad name is refused next to its field.
    await form.getByLabel('Key name').fill('not a name');
    await form.getByRole('button', { name: 'Create TSIG key' }).click();
    expect(await fieldError(form.getByLabel('Key name'))).toMatch(/key name/i);
    await form.getByLabel('Key name').fill('acme.panel-e2e.test');
    await form.getByLabel('Algorithm').selectOption('hmac-sha512');
    await form.getByLabel('Domains').selectOption({ label: ZONE });
    await form.getByLabel('DNS UPDATE').selectOption({ label: 'only some names and types' });
    await form.getByLabel('Names', { exact: true }).fill('_acme-challenge');
    await form.getByLabel('Types', { exact: true }).fill('TXT');
    await form.getByLabel('Zone transfers').check();
    await form.getByRole('button', { name: 'Create TSIG key' }).click();
    const shown = page.getByLabel("The new key's secret");
    await shown.waitFor();
    const secret = await shown.innerText();
    expect(Buffer.from(secret, 'base64').length).toBe(32);
    // The snippets name the DNS server as the user gives it.
    const newKey = page.getByRole('region', { name: 'The new TSIG key' });
    await newKey.getByLabel('DNS server').fill('127.0.0.1');
    await newKey.getByLabel('Port').fill(String(server.dnsAddress?.port));
    const snippet = (title: string) => newKey.getByLabel(title, { exact: true }).innerText();
    // nsupdate's, pasted into a shell as it is, adds the TXT record.
    const nsupdate = await snippet('nsupdate');
    expect(nsupdate).toContain(`nsupdate -y hmac-sha512:acme.panel-e2e.test.:${secret} <<'EOF'`);
    await run('sh', ['-c', nsupdate], { timeout: 30_000 });
    expect((await dig(server, `_acme-challenge.${ZONE}`, 'TXT')).answer.map((r) => r.data)).toEqual(['"replace me"']);
    // certbot-dns-rfc2136's credentials file, key = value.
    const ini = Object.fromEntries(
      (await snippet('certbot-dns-rfc2136 credentials'))
        .split('\n')
        .filter((l) => !l.startsWith('#'))
        .map((l) => l.split(' = ')),
    );
    expect(ini).toEqual({
      dns_rfc2136_server: '127.0.0.1',
      dns_rfc2136_port: String(server.dnsAddress?.port),
      dns_rfc2136_name: 'acme.panel-e2e.test.',
      dns_rfc2136_secret: secret,
      dns_rfc2136_algorithm: 'HMAC-SHA512',
    });
    // cert-manager's Secret and Issuer with the rfc2136 solver.
    const yaml = await snippet('cert-manager Issuer and Secret');
    expect(yaml).toContain(`tsig-secret: "${secret}"`);
    expect(yaml).toMatch(new RegExp(`rfc2136:\\s+nameserver: "127\\.0\\.0\\.1:${server.dnsAddress?.port}"\\s+tsigKeyName: acme\\.panel-e2e\\.test\\.\\s+tsigAlgorithm: HMACSHA512\\s+tsigSecretSecretRef:\\s+name: zonehost-tsig\\s+key: tsig-secret`));
    const row = page.getByRole('row', { name: /acme\.panel-e2e\.test/ });
    await row.waitFor();
    expect(await row.innerText()).toMatch(new RegExp(`${ZONE.replace(/\./g, '\\.')}[\\s\\S]*_acme-challenge[\\s\\S]*TXT[\\s\\S]*yes`));
    await shot(page, '08-tsig-keys');
    const api = client(server.base, await sessionKey());
    const [key] = (await api.get('/v1/tsigkeys')).body;
    expect(key).toMatchObject({ name: 'acme.panel-e2e.test.', algorithm: 'hmac-sha512', update: { names: ['_acme-challenge'], types: ['TXT'] }, transfer: true });
    expect(key).not.toHaveProperty('secret');
    expect((await server.services.tsigKeys.byName('acme.panel-e2e.test'))?.secret).toBe(secret);
    await row.getByRole('button', { name: 'Delete' }).click();
    await row.getByRole('button', { name: 'Yes, delete' }).click();
    await row.waitFor({ state: 'detached' });
    expect((await api.get('/v1/tsigkeys')).body).toEqual([]);
    // Shown once: hidden, the secret is nowhere on the page, and nothing brings it back.
    await newKey.getByRole('button', { name: 'Done, hide it' }).click();
    await newKey.waitFor({ state: 'detached' });
    expect(await page.content()).not.toContain(secret);
  });

  it('signs out, which revokes the session key', async () => {
    const key = await sessionKey();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await sessionKey()).toBeUndefined();
    expect((await client(server.base, key).get('/v1/domains')).status).toBe(401);
  });

  it('can be used with the keyboard alone', async () => {
    await page.goto(`${server.base}/manager/#/domains`);
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    // The page starts with focus on its heading; the next stop is the first field.
    await page.keyboard.press('Tab');
    expect((await focused()).name).toBe('username');
    await page.keyboard.type(USER);
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Domains' }).waitFor();
    // Tab reaches the domain's link; Enter opens it.
    for (let i = 0; i < 30; i++) {
      await page.keyboard.press('Tab');
      if ((await focused()).text === ZONE) break;
    }
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: new RegExp(ZONE) }).waitFor();
  });
});
