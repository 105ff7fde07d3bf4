// One Chromium page on the test harness (the real bundle under the extension's CSP, a fake VS
// Code host that records what the webview posts), for the browser tests that drive one page.
import { chromium, Browser, Page } from 'playwright-core';
import { startServer } from './server';

export const CHROMIUM = process.env.STRATA_CHROMIUM ?? '/usr/bin/chromium';
export const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'];

export interface HarnessPage { page: Page; close(): Promise<void> }

/** The harness loaded, its 'ready' posted; page errors collected into `errors`. */
export async function openHarness(width: number, height: number, errors: string[] = []): Promise<HarnessPage> {
  const server = await startServer();
  const browser: Browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  const page = await (await browser.newContext({ viewport: { width, height } })).newPage();
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${server.url}/test/harness.html`);
  await page.waitForFunction(() => (window as any).__posted?.length > 0);
  return { page, close: async () => { await browser.close(); await server.close(); } };
}
