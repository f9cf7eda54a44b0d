/** What a dashboard test does on a page: navigate, wait for text and rows, screenshot, call the API. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Locator, Page } from 'playwright-core';
import type { Served } from './cli-processes.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SCREENSHOTS = path.join(ROOT, 'test-results/screenshots');

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

/** Opens one of the dashboard's screens from its navigation and waits until it is shown. */
export async function go(
  page: Page,
  screen: 'Overview' | 'Tasks' | 'Failures' | 'Groups' | 'Workers' | 'Settings' | 'Schedules',
): Promise<void> {
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: screen }).click();
  await page.waitForFunction((title) => document.title === title, `Semaforo — ${screen}`);
}
