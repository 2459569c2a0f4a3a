/**
 * Debian's Chromium driven by playwright-core (no browser download), and the panel bundle the server
 * serves, rebuilt when web/ changed since the last build.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { build } from 'vite';
import { PANEL_DIR } from '../../src/http/panel.js';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'panel');
const WEB = join(process.cwd(), 'web');

function newestIn(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestIn(p) : statSync(p).mtimeMs);
  }
  return newest;
}

/** Builds the panel unless dist/panel is newer than every file of web/ (npm test has just built it). */
export async function ensurePanelBuilt(): Promise<void> {
  let built = 0;
  try {
    built = statSync(join(PANEL_DIR, 'index.html')).mtimeMs;
  } catch {
    // not built yet
  }
  if (built > Math.max(newestIn(join(WEB, 'src')), statSync(join(WEB, 'index.html')).mtimeMs, statSync(join(WEB, 'vite.config.ts')).mtimeMs)) return;
  await build({ configFile: join(WEB, 'vite.config.ts'), logLevel: 'error' });
}

export interface Browser {
  context: BrowserContext;
  page: Page;
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
  return {
    context,
    page,
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
