/** What every panel test file does after each test and after all of them. */
import { afterAll, afterEach, expect } from 'vitest';
import type { Browser } from './browser.js';

/**
 * The hooks every panel test file shares: after each test, no console error in the page; after all, the
 * browser closed, then whatever else the file started (`closeRest`).
 */
export function panelHooks(browser: () => Browser | undefined, closeRest: () => Promise<unknown>): void {
  afterEach(() => {
    expect(browser()?.errors()).toEqual([]);
  });
  afterAll(async () => {
    await browser()?.close();
    await closeRest();
  });
}
