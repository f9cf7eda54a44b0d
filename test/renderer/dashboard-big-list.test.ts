/**
 * 100,000 tasks in the Tasks list: paged into a virtualised grid that keeps its scroll position
 * while live updates arrive.
 * Part of the dashboard's end-to-end suite: the built renderer in headless Chromium, talking
 * HTTP+SSE to a spawned `semaforo serve`, while other `semaforo` processes change the same file.
 */
import { describe, expect, it } from 'vitest';
import { enqueueMany } from './cli-processes.ts';
import { go, rowNames, screenshot, waitForText } from './dashboard-page.ts';
import { count, hasChromium } from './dashboard-steps.ts';
import { dashboardSession } from './harness.ts';

describe.skipIf(!hasChromium)('dashboard in headless Chromium against semaforo serve', () => {
  const open = dashboardSession();

  it('pages 100,000 tasks into a virtualised list that keeps its scroll position on live updates', async () => {
    const total = 100_000;
    const specs = Array.from({ length: total }, (_, i) => ({
      kind: 'sleep',
      name: `bulk-${String(i).padStart(6, '0')}`,
      group: ['alpha', 'beta', 'gamma'][i % 3],
      delayMs: 3600_000,
      payload: { ms: 10 },
    }));
    const { db, page, server } = await open({ before: async (db) => void (await enqueueMany(db, specs)) });
    await waitForText(count(page, 'waiting'), '100,000');

    // First paint measured from a reload straight onto each screen (printed, not asserted:
    // wall-clock timings on a shared machine are noise).
    const measure = async (hash: string, mark: string) => {
      await page.evaluate((h) => (window.location.hash = h), hash);
      await page.reload();
      await page.waitForFunction((m) => performance.getEntriesByName(m).length > 0, mark, {
        timeout: 10_000,
      });
      return page.evaluate((m) => {
        const fcp = performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN;
        const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
        return {
          firstContentfulPaint: Math.round(fcp),
          domContentLoaded: Math.round(nav?.domContentLoadedEventEnd ?? NaN),
          data: Math.round(performance.getEntriesByName(m)[0]!.startTime),
        };
      }, mark);
    };
    const tasks = await measure('#/tasks', 'semaforo:first-task-rows');
    const overview = await measure('#/overview', 'semaforo:first-stats');
    console.log(
      `first paint with ${total.toLocaleString('en')} tasks (ms after navigation start): ` +
        `Tasks screen FCP ${tasks.firstContentfulPaint}, first rows ${tasks.data}; ` +
        `Overview FCP ${overview.firstContentfulPaint}, counts ${overview.data}`,
    );

    await go(page, 'Tasks');
    await waitForText(page.getByTestId('task-total'), '100,000 tasks');
    const grid = page.getByRole('grid', { name: 'Tasks' });
    expect(await grid.getAttribute('aria-rowcount')).toBe(String(total + 1));
    const rendered = await page.locator('[role="grid"] [role="row"][aria-rowindex]').count();
    expect(rendered).toBeLessThan(100); // virtualised: only what is in view (+ overscan)
    expect((await rowNames(page))[0]).toBe('bulk-099999');
    await screenshot(page, 'tasks-100k');

    // The far end loads on demand.
    await grid.focus();
    await page.keyboard.press('End');
    await page.locator('[role="row"][data-task-id] .cell-name', { hasText: /^bulk-000000$/ }).waitFor();

    // Scroll into the middle, then let another process add a task: the view stays where it was.
    const scroller = page.locator('.task-grid-scroll');
    await scroller.evaluate((el) => el.scrollTo({ top: 1_500_000 }));
    await page.locator('[role="row"][aria-rowindex="50001"][data-task-id]').waitFor();
    const before = await scroller.evaluate((el) => el.scrollTop);
    await enqueueMany(db, [{ kind: 'sleep', name: 'late-arrival', delayMs: 3600_000, payload: { ms: 10 } }]);
    await waitForText(page.getByTestId('task-total'), '100,001 tasks');
    expect(await scroller.evaluate((el) => el.scrollTop)).toBe(before);
    await page.locator('[role="row"][aria-rowindex="50001"][data-task-id]').waitFor();
    void server;
  }, 90_000);
});
