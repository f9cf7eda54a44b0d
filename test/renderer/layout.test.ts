/**
 * The dashboard at a phone's width and on a small laptop with the detail open, measured from the
 * element boxes Chromium lays out: nothing clipped, nothing overlapping, no page-wide scroll.
 */
import fs from 'node:fs';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { enqueueMany, semaforo } from './cli-processes.ts';
import { go, screenshot, waitForRows } from './dashboard-page.ts';
import { CHROMIUM, dashboardSession } from './harness.ts';

const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) console.log(`skipped: no Chromium at ${CHROMIUM}`);

const HOUR = 3600_000;
const NAMES = ['nightly-backup', 'sync-orders', 'send-invoices'];

async function fill(db: string): Promise<void> {
  const r = await semaforo(db, ['enqueue', '--name', 'broken-export', '--max-attempts', '1', '--', 'false']);
  expect(r.code, r.stderr).toBe(0);
  await semaforo(db, ['work', '--drain']);
  await enqueueMany(
    db,
    NAMES.map((name, i) => ({
      name,
      group: ['backups', 'partner-api', 'mail'][i],
      kind: 'sleep',
      payload: { ms: 1 },
      delayMs: HOUR,
    })),
  );
}

interface Box {
  cls: string;
  left: number;
  right: number;
  top: number;
  bottom: number;
  clipped: boolean;
}

/** The shown cells of every task row, with their boxes, and the row's own box. */
function rowBoxes(page: Page): Promise<{ row: Box; cells: Box[] }[]> {
  return page.evaluate(() => {
    const box = (el: Element): Box => {
      const r = el.getBoundingClientRect();
      const h = el as HTMLElement;
      return {
        cls: h.className,
        left: r.left,
        right: r.right,
        top: r.top,
        bottom: r.bottom,
        clipped: h.scrollWidth > h.clientWidth + 1,
      };
    };
    return [...document.querySelectorAll('[role="grid"] [data-task-id]')].map((row) => ({
      row: box(row),
      cells: [...row.children].filter((c) => getComputedStyle(c).display !== 'none').map(box),
    }));
  });
}

const overlaps = (a: Box, b: Box) =>
  Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5 &&
  Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5;

describe.skipIf(!hasChromium)('dashboard layout', () => {
  const open = dashboardSession();

  it('shows tasks as two-line cards and counts as a 2x2 grid at 420 px, nothing clipped', async () => {
    const { page } = await open({ before: fill, viewport: { width: 420, height: 800 } });
    const noSideScroll = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

    // Counts: four cards in two columns and two rows, each number inside its card.
    await page.getByTestId('count-failed').getByText('1').waitFor();
    const cards = await page.locator('.big-number').evaluateAll((els) =>
      els.map((e) => {
        const r = e.getBoundingClientRect();
        const v = e.querySelector('.big-number-value') as HTMLElement;
        return {
          left: Math.round(r.left),
          top: Math.round(r.top),
          right: r.right,
          fits: v.scrollWidth <= e.clientWidth,
        };
      }),
    );
    expect(new Set(cards.map((c) => c.left)).size).toBe(2);
    expect(new Set(cards.map((c) => c.top)).size).toBe(2);
    expect(cards.every((c) => c.fits && c.right <= 420)).toBe(true);
    expect(await noSideScroll()).toBe(true);

    // The rail's failed count sits beside its symbol, not over it.
    const failures = page
      .getByRole('navigation', { name: 'Screens' })
      .getByRole('link', { name: /Failures/ });
    const symbol = await failures.locator('.rail-symbol').boundingBox();
    const badge = await failures.locator('.rail-count').boundingBox();
    const hit =
      Math.min(symbol!.x + symbol!.width, badge!.x + badge!.width) - Math.max(symbol!.x, badge!.x) > 0.5 &&
      Math.min(symbol!.y + symbol!.height, badge!.y + badge!.height) - Math.max(symbol!.y, badge!.y) > 0.5;
    expect(hit).toBe(false);
    await screenshot(page, 'overview-420');

    await go(page, 'Tasks');
    await waitForRows(page, [...NAMES].reverse().concat('broken-export'));
    const rows = await rowBoxes(page);
    expect(rows).toHaveLength(4);
    for (const { row, cells } of rows) {
      expect(row.bottom - row.top).toBeGreaterThan(45); // two lines
      expect(cells.map((c) => c.cls.split(' ')[0])).toEqual([
        'cell-check',
        'cell-status',
        'cell-name',
        'cell-group',
        'cell-attempts',
        'cell-time',
      ]);
      for (const c of cells) {
        expect(c.left, c.cls).toBeGreaterThanOrEqual(row.left - 0.5);
        expect(c.right, c.cls).toBeLessThanOrEqual(row.right + 0.5);
        expect(c.clipped, `${c.cls} is clipped`).toBe(false);
      }
      for (let i = 0; i < cells.length; i++)
        for (let j = i + 1; j < cells.length; j++)
          expect(overlaps(cells[i]!, cells[j]!), `${cells[i]!.cls} overlaps ${cells[j]!.cls}`).toBe(false);
    }
    expect(await noSideScroll()).toBe(true);
    await screenshot(page, 'tasks-420');
  });

  it('keeps the filter bar to two lines at 1024 px with the detail panel open', async () => {
    const { page } = await open({ before: fill, viewport: { width: 1024, height: 768 } });
    await go(page, 'Tasks');
    await waitForRows(page, [...NAMES].reverse().concat('broken-export'));
    await page.locator('[role="grid"] [data-task-id]').first().click();
    await page.getByRole('complementary', { name: 'send-invoices' }).waitFor();
    // Lines of the bar: its controls' vertical centres, a new line wherever they jump by > 12 px.
    const centres = await page.getByRole('search', { name: 'Filter tasks' }).evaluate((bar) =>
      [...bar.querySelectorAll('input[type="search"], .chip, .inline-field, :scope > button')].map((e) => {
        const r = e.getBoundingClientRect();
        return (r.top + r.bottom) / 2;
      }),
    );
    centres.sort((a, b) => a - b);
    const lines = centres.filter((c, i) => i === 0 || c - centres[i - 1]! > 12).length;
    await screenshot(page, 'tasks-1024-detail');
    expect(lines).toBeLessThanOrEqual(2);
  });
});
