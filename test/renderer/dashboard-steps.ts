/**
 * What the dashboard's end-to-end test files share: whether Chromium is here, a task as `list
 * --json` gives it, and two steps on a page (a status count, confirming a dialog).
 */
import fs from 'node:fs';
import type { Page } from 'playwright-core';
import { CHROMIUM } from './harness.ts';

export const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) console.log(`skipped: no Chromium at ${CHROMIUM}`);

export interface ListedTask {
  id: number;
  name: string;
  status: string;
}

export const count = (page: Page, label: string) => page.getByTestId(`count-${label}`);

export async function confirmDialog(page: Page, question: string | RegExp, button: string | RegExp) {
  const dialog = page.getByRole('dialog', { name: question });
  await dialog.waitFor();
  await dialog.getByRole('button', { name: button }).click();
  await dialog.waitFor({ state: 'detached' });
}
