/**
 * Headless Chromium for the dashboard's e2e tests (playwright-core): one browser per describe
 * block, a `serve` and a page per test. The CLI processes are in cli-processes.ts, the renderer
 * build in renderer-build.ts, what a test does on a page in dashboard-page.ts.
 */
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { cleanUp, serve, tempDir, type Served } from './cli-processes.ts';
import { ensureRendererBuilt } from './renderer-build.ts';

export const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export interface OpenedDashboard {
  db: string;
  page: Page;
  server: Served;
}

/**
 * Headless Chromium for one describe block: launched once (after the renderer is built), one
 * context and `serve` per test, both closed after it, and a script error in the page fails the
 * test even when its assertions passed. Call inside `describe`.
 */
export function dashboardSession() {
  let browser: Browser | null = null;
  let context: BrowserContext | null = null;
  let server: Served | null = null;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    const build = await ensureRendererBuilt();
    if (build === 'built') console.log('renderer: built dist/renderer for this run');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  }, 120_000);

  afterEach(async () => {
    await context?.close();
    context = null;
    await server?.stop();
    server = null;
    expect(pageErrors.splice(0), 'errors thrown in the page').toEqual([]);
  });

  afterAll(async () => {
    await browser?.close();
    await cleanUp();
  });

  const extraContexts: BrowserContext[] = [];
  afterEach(async () => {
    for (const c of extraContexts.splice(0)) await c.close();
  });

  /**
   * Another browser context (a new window or profile) on this test's server, holding `cookies`
   * (e.g. the first context's, to stand for a new tab of the same browser); closed after the test.
   */
  async function newPage(options: {
    cookies?: Awaited<ReturnType<BrowserContext['cookies']>>;
    viewport?: { width: number; height: number };
  }): Promise<Page> {
    const c = await browser!.newContext({ viewport: options.viewport ?? { width: 1280, height: 800 } });
    extraContexts.push(c);
    if (options.cookies?.length) await c.addCookies(options.cookies);
    const page = await c.newPage();
    page.setDefaultTimeout(10_000);
    page.on('pageerror', (e) => pageErrors.push(e.message));
    return page;
  }

  /**
   * A fresh queue file (`before` may fill it), or the PostgreSQL queue `db` names, `serve` on it,
   * and a page with the dashboard open.
   */
  async function open(
    options: {
      before?: (db: string) => Promise<void>;
      viewport?: { width: number; height: number };
      db?: string;
    } = {},
  ): Promise<OpenedDashboard> {
    const db = options.db ?? path.join(tempDir(), 'queue.db');
    await options.before?.(db);
    server = await serve(db);
    context = await browser!.newContext({ viewport: options.viewport ?? { width: 1280, height: 800 } });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000); // a missing element fails the test with its name, not a test timeout
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(server.dashboardUrl);
    await page.getByRole('navigation', { name: 'Screens' }).waitFor();
    return { db, page, server };
  }
  return Object.assign(open, { newPage });
}
