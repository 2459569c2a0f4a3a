/**
 * Remakes the README's pictures of the panel (`npm run screenshots`): a throw-away node with an example
 * domain, signed in through the panel in Debian's Chromium (the tests' browser), then the records table and
 * the DNSSEC section, each as a PNG under docs/images/.
 */
import { join } from 'node:path';
import { startTestServer } from '../support/server.js';
import { ensurePanelBuilt, openBrowser, signIn } from './browser.js';

const OUT = join(process.cwd(), 'docs', 'images');
const ZONE = 'example.org';
const USER = 'screenshots';
const PASSWORD = 'a password for the screenshots';

await ensurePanelBuilt();
const server = await startTestServer();
const browser = await openBrowser(1280, 900);
try {
  const { key } = await server.user(USER, PASSWORD);
  // Plain fetch: the tests' client helper asserts with vitest, which runs only under vitest.
  const call = async (method: string, path: string, body: unknown): Promise<{ id: number }> => {
    const res = await fetch(`${server.base}${path}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as { id: number };
  };
  const { id } = await call('POST', '/v1/domains', { domain: ZONE, soa: `hostmaster@${ZONE}` });
  const records: [string, Record<string, unknown>][] = [
    ['A', { name: '', address: '192.0.2.10' }],
    ['A', { name: 'www', address: '192.0.2.10' }],
    ['AAAA', { name: 'www', address: '2001:db8::10' }],
    ['MX', { name: '', priority: 10, mail_server: `mail.${ZONE}` }],
    ['A', { name: 'mail', address: '192.0.2.25', ttl: 3600 }],
    ['TXT', { name: '', text: 'v=spf1 mx -all' }],
    ['CAA', { name: '', tag: 'issue', value: 'letsencrypt.org' }],
    ['SRV', { service: 'imaps', protocol: 'tcp', port: 993, target: `mail.${ZONE}` }],
    ['CNAME', { name: 'docs', target: `www.${ZONE}` }],
    ['HTTPS', { name: '', svc_priority: 1, target_name: '.', svc_params: { alpn: ['h2', 'h3'] } }],
  ];
  for (const [type, body] of records) await call('POST', `/v1/domains/${id}/${type}`, body);
  await call('PUT', `/v1/domains/${id}/dnssec`, { enabled: true });

  const { page } = browser;
  await signIn(page, server.base, USER, PASSWORD);
  await page.goto(`${server.base}/manager/#/domains/${id}`);
  await page.getByRole('table', { name: /^Records of/ }).waitFor();
  const dnssec = page.getByRole('region', { name: /^DNSSEC/ });
  await dnssec.getByLabel('DS record').first().waitFor();
  await page.getByRole('region', { name: 'Records', exact: true }).screenshot({ path: join(OUT, 'panel-records.png') });
  await dnssec.screenshot({ path: join(OUT, 'panel-dnssec.png') });
  console.log(`wrote ${join(OUT, 'panel-records.png')} and ${join(OUT, 'panel-dnssec.png')}`);
} finally {
  await browser.close();
  await server.close();
}
