/**
 * Opening the dashboard (the token leaves the URL for a session cookie) and the Overview's
 * counts, updated live while other `semaforo` processes enqueue and run tasks.
 * Part of the dashboard's end-to-end suite: the built renderer in headless Chromium, talking
 * HTTP+SSE to a spawned `semaforo serve`, while other `semaforo` processes change the same file.
 */
import { describe, expect, it } from 'vitest';
import { semaforo, work } from './cli-processes.ts';
import { screenshot, waitForText } from './dashboard-page.ts';
import { count, hasChromium } from './dashboard-steps.ts';
import { dashboardSession } from './harness.ts';

describe.skipIf(!hasChromium)('dashboard in headless Chromium against semaforo serve', () => {
  const open = dashboardSession();

  it('takes the token from the address, then keeps it out of the URL', async () => {
    const { page, server } = await open();
    expect(page.url()).toBe(`${server.origin}/`);
    expect(await page.title()).toBe('Semaforo — Overview');
    // A reload keeps working: the token became the server's session cookie.
    await page.reload();
    await waitForText(count(page, 'running'), '0');
  });

  it('shows counts enqueued from another process and updates them live as a worker runs the tasks', async () => {
    const { db, page } = await open();
    await waitForText(count(page, 'waiting'), '0');
    await page.getByText('No tasks').or(page.getByText('Nothing running')).first().waitFor();

    // Another process pauses the queue and enqueues three tasks; the open page follows.
    expect((await semaforo(db, ['pause'])).code).toBe(0);
    for (let i = 1; i <= 3; i++) {
      const r = await semaforo(db, [
        'enqueue',
        '--kind',
        'sleep',
        '--name',
        `nightly-${i}`,
        '--group',
        'batch',
        '--payload',
        '{"ms":1500}',
      ]);
      expect(r.code, r.stderr).toBe(0);
    }
    await waitForText(count(page, 'waiting'), '3');
    await waitForText(count(page, 'running'), '0');
    await waitForText(count(page, 'done'), '0');
    await page.getByRole('img', { name: 'Queue: Paused' }).first().waitFor();
    const batch = page.getByRole('article', { name: 'Group batch' });
    await batch.getByText('3 waiting').waitFor();
    await screenshot(page, 'overview-paused');

    // A worker in yet another process, and Resume in the page: the tasks run and finish.
    const worker = work(db);
    await page.getByRole('button', { name: 'Resume queue' }).click();
    await page.getByRole('status').getByText('The queue runs again').waitFor();
    await waitForText(count(page, 'running'), '3');
    const running = page.getByRole('list', { name: 'Running tasks' });
    for (let i = 1; i <= 3; i++) await running.getByText(`nightly-${i}`).waitFor();
    await batch.getByText('3 running (no group limit), no rate limit').waitFor();
    await screenshot(page, 'overview-running');
    await waitForText(count(page, 'done'), '3');
    await waitForText(count(page, 'running'), '0');
    await waitForText(count(page, 'waiting'), '0');
    await page.getByText('3 finished in the last hour').waitFor();
    await worker.stop();
  });
});
