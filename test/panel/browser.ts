/**
 * Debian's Chromium driven by playwright-core (no browser download), and the panel bundle the server
 * serves, rebuilt when web/ changed since the last build. Free of vitest, so screenshots.ts runs it too;
 * the hooks panel test files share are in hooks.ts.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { PEERS } from '../support/peer-table.js';

export const CHROMIUM = PEERS.chromium.file;
export const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'panel');

/** Builds the panel when web/ changed since its last build (npm test has just built it), as npm start does. */
export async function ensurePanelBuilt(): Promise<void> {
  await promisify(execFile)(process.execPath, [join(process.cwd(), 'scripts', 'build.mjs'), '--panel'], { timeout: 120_000 });
}

export interface Browser {
  context: BrowserContext;
  page: Page;
  /**
   * What the browser reported as an error since the last look (console errors, uncaught exceptions, failed
   * loads), emptied by each call. An API answer of 4xx under /v1/ is left out: Chromium logs it as a failed
   * load, but it is the API's answer the panel shows (a wrong password, a field's problem), not a fault.
   */
  errors(): string[];
  close(): Promise<void>;
}

/** Chromium with a fresh profile, and nothing reaching outside this machine. */
export async function openBrowser(width = 1440, height = 1000): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'zonehost-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width, height },
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  // Fail in seconds, not at the test timeout, when something does not appear.
  page.setDefaultTimeout(30_000);
  let errors: string[] = [];
  page.on('pageerror', (e) => errors.push(`uncaught: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    const url = m.location().url;
    if (/status of 4\d\d/.test(m.text()) && new URL(url || 'about:blank', 'http://x').pathname.startsWith('/v1/')) return;
    errors.push(`${m.text()} (${url})`);
  });
  return {
    context,
    page,
    errors() {
      const seen = errors;
      errors = [];
      return seen;
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Saves a full-page screenshot under test-artifacts/panel/. */
export async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/** Opens a domain's page (the panel signed in) and waits for its heading. */
export async function openDomain(page: Page, base: string, domainId: number, zone: string): Promise<void> {
  await page.goto(`${base}/manager/#/domains/${domainId}`);
  await page.getByRole('heading', { name: new RegExp(zone) }).waitFor();
}

/** Signs in through the panel's own form and waits for the first page. */
export async function signIn(page: Page, base: string, username: string, password: string): Promise<void> {
  await page.goto(`${base}/manager/`);
  await page.getByLabel('User name').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('heading', { name: 'Domains' }).waitFor();
}
