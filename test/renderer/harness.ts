/**
 * What the dashboard's e2e tests drive: the real `semaforo` CLI in child processes (serve, work,
 * enqueue, …) on a temp database, the renderer build, and headless Chromium via playwright-core.
 * Kept apart from test/helpers.ts, whose afterEach clean-up would tear down the server and the
 * temp folder this suite shares across the tests of one file.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { outputOf, type ProcessOutput } from '../process-output.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(ROOT, 'bin/semaforo.js');
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
const SCREENSHOTS = path.join(ROOT, 'test-results/screenshots');
const DIST_INDEX = path.join(ROOT, 'dist/renderer/index.html');
const BUILD_LOCK = path.join(ROOT, 'dist/.renderer-build.lock');

const children = new Set<ChildProcess>();
const dirs: string[] = [];

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'semaforo-e2e-'));
  dirs.push(dir);
  return dir;
}

/** A queue file's folder is its home; a PostgreSQL queue gets a temp folder of its own. */
const homes = new Map<string, string>();
function env(db: string): NodeJS.ProcessEnv {
  let home = homes.get(db);
  if (!home) homes.set(db, (home = /^postgres(ql)?:\/\//i.test(db) ? tempDir() : path.dirname(db)));
  return { ...process.env, SEMAFORO_HOME: home, SEMAFORO_DB: db, NO_COLOR: '1' };
}

type CliResult = ProcessOutput;

/** `semaforo --db DB ARGS` in its own process, as a script or cron job would run it. */
export function semaforo(db: string, args: readonly string[], stdin = ''): Promise<CliResult> {
  const child = spawn(process.execPath, [BIN, '--db', db, ...args], { env: env(db), stdio: 'pipe' });
  return outputOf(child, stdin);
}

/** Like `semaforo`, but fails the test when the command does, and parses `--json` output. */
export async function semaforoJson<T>(db: string, args: readonly string[], stdin = ''): Promise<T> {
  const r = await semaforo(db, ['--json', ...args], stdin);
  if (r.code !== 0) throw new Error(`semaforo ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

/** Enqueues task specs in one `enqueue --stdin` transaction; returns their ids. */
export async function enqueueMany(db: string, specs: readonly object[]): Promise<number[]> {
  const tasks = await semaforoJson<{ id: number }[]>(
    db,
    ['enqueue', '--stdin'],
    specs.map((s) => JSON.stringify(s)).join('\n'),
  );
  return tasks.map((t) => t.id);
}

function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

export interface Served {
  db: string;
  /** http://127.0.0.1:PORT */
  origin: string;
  dashboardUrl: string;
  token: string;
  stderr(): string;
  stop(): Promise<void>;
}

/** `semaforo serve --port 0` on `db`; resolves once it printed its Dashboard line. */
async function serve(db: string, extra: readonly string[] = []): Promise<Served> {
  const child = track(
    spawn(process.execPath, [BIN, '--db', db, 'serve', '--port', '0', ...extra], { env: env(db) }),
  );
  let stderr = '';
  child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
  const lines = createInterface({ input: child.stdout! });
  const first = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`serve printed nothing in 15 s; stderr: ${stderr}`)),
      15_000,
    );
    lines.once('line', (line) => {
      clearTimeout(timer);
      resolve(line);
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
  });
  const m = /^Dashboard: (http:\/\/[^/]+)\/#token=([A-Za-z0-9_-]+)$/.exec(first);
  if (!m) throw new Error(`unexpected first line from serve: ${first}`);
  return {
    db,
    origin: m[1]!,
    token: m[2]!,
    dashboardUrl: `${m[1]}/#token=${m[2]}`,
    stderr: () => stderr,
    stop: () => stopChild(child),
  };
}

/** `semaforo work` on `db` until stopped. */
export function work(db: string): { stop(): Promise<void> } {
  const child = track(spawn(process.execPath, [BIN, '--db', db, 'work'], { env: env(db), stdio: 'ignore' }));
  return { stop: () => stopChild(child) };
}

async function cleanUp(): Promise<void> {
  await Promise.all([...children].map(stopChild));
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    newest = Math.max(newest, fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

function isFresh(): boolean {
  const built = fs.existsSync(DIST_INDEX) ? fs.statSync(DIST_INDEX).mtimeMs : 0;
  const sources = Math.max(
    newestMtime(path.join(ROOT, 'renderer')),
    newestMtime(path.join(ROOT, 'shared')),
    fs.statSync(path.join(ROOT, 'vite.config.ts')).mtimeMs, // how it is built (precompressed copies)
  );
  return built > sources;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid in the build lock; 0 while its owner has not written it yet (or the lock just went). */
function lockOwner(): number {
  try {
    return Number(fs.readFileSync(path.join(BUILD_LOCK, 'pid'), 'utf8')) || 0;
  } catch {
    return 0;
  }
}

/**
 * Takes the build lock (a directory: mkdir is atomic), so test files running in parallel never
 * `vite build` into the same dist/renderer at once. A lock left by a process that died is taken over.
 */
async function withBuildLock<T>(run: () => Promise<T>): Promise<T> {
  fs.mkdirSync(path.dirname(BUILD_LOCK), { recursive: true });
  for (;;) {
    try {
      fs.mkdirSync(BUILD_LOCK, { recursive: false });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = lockOwner();
      if (owner > 0 && !alive(owner)) fs.rmSync(BUILD_LOCK, { recursive: true, force: true });
      else await new Promise((r) => setTimeout(r, 100)); // another file's build: wait for it
    }
  }
  try {
    fs.writeFileSync(path.join(BUILD_LOCK, 'pid'), String(process.pid));
    return await run();
  } finally {
    fs.rmSync(BUILD_LOCK, { recursive: true, force: true });
  }
}

/**
 * Builds dist/renderer when it is missing or older than the renderer's (or shared/) sources. Test
 * files call this in parallel: one builds, the others wait for it and then find the build fresh.
 */
async function ensureRendererBuilt(): Promise<'fresh' | 'built'> {
  if (isFresh()) return 'fresh';
  return withBuildLock(async () => {
    if (isFresh()) return 'fresh';
    const vite = path.join(ROOT, 'node_modules/vite/bin/vite.js');
    const r = await outputOf(
      // NODE_ENV=production as `npm run build` has it: vitest's NODE_ENV=test would make vite ship
      // React's development build, three times the size of what users get.
      spawn(process.execPath, [vite, 'build', '--logLevel', 'warn'], {
        cwd: ROOT,
        stdio: 'pipe',
        env: { ...process.env, NODE_ENV: 'production' },
      }),
    );
    if (r.code !== 0) throw new Error(`vite build failed (${r.code}): ${r.stderr || r.stdout}`);
    return 'built';
  });
}

/** One request to `serve`'s JSON API, as the dashboard sends it; throws with the server's error. */
export async function apiCall<T>(served: Served, name: string, input: unknown = null): Promise<T> {
  const res = await fetch(`${served.origin}/api/${name}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${served.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(input),
  });
  const body = (await res.json()) as { value?: T; error?: { message: string } };
  if (!res.ok || body.error) throw new Error(`${name}: HTTP ${res.status} ${body.error?.message ?? ''}`);
  return body.value as T;
}

/** Waits until `locator`'s whole text is `text` (exact, trimmed). */
export async function waitForText(locator: Locator, text: string | RegExp, timeout = 10_000): Promise<void> {
  const want =
    typeof text === 'string' ? new RegExp(`^\\s*${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`) : text;
  await locator.filter({ hasText: want }).first().waitFor({ timeout });
}

/** The names in the Tasks grid's rendered rows, top to bottom. */
export async function rowNames(page: Page): Promise<string[]> {
  return page
    .locator('[role="grid"][aria-label="Tasks"] [role="row"][data-task-id] .cell-name')
    .allTextContents();
}

/** Waits until the Tasks grid shows exactly these names (live data arrives asynchronously). */
export async function waitForRows(page: Page, names: readonly string[], timeout = 10_000): Promise<void> {
  try {
    await page.waitForFunction(
      (want) => {
        const got = [...document.querySelectorAll('[role="grid"] [data-task-id] .cell-name')].map(
          (e) => e.textContent,
        );
        return JSON.stringify(got) === JSON.stringify(want);
      },
      names,
      { timeout },
    );
  } catch (err) {
    throw new Error(
      `Tasks grid shows [${(await rowNames(page)).join(', ')}], expected [${names.join(', ')}]`,
      {
        cause: err,
      },
    );
  }
}

export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`) });
}

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

/** Opens one of the dashboard's screens from its navigation and waits until it is shown. */
export async function go(
  page: Page,
  screen: 'Overview' | 'Tasks' | 'Failures' | 'Groups' | 'Workers' | 'Settings' | 'Schedules',
): Promise<void> {
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: screen }).click();
  await page.waitForFunction((title) => document.title === title, `Semaforo — ${screen}`);
}
