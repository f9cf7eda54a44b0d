/**
 * A damaged schedule on the Schedules screen: the built renderer in headless Chromium against a
 * spawned `semaforo serve` on a file whose schedule row was damaged by SQL (as a hand edit or a bad
 * restore would). The row is marked in words, says what is damaged, and the actions that cannot
 * work are disabled pointing at why; the other schedule is untouched, and a replace repairs it.
 */
import Database from 'better-sqlite3';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Schedule } from '../../shared/domain.ts';
import { semaforoJson } from './cli-processes.ts';
import { apiCall, go, screenshot } from './dashboard-page.ts';
import { CHROMIUM, dashboardSession } from './harness.ts';

const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) console.log(`skipped: no Chromium at ${CHROMIUM}`);

const PROBLEM = 'the stored task template is damaged: not JSON';

describe.skipIf(!hasChromium)('a damaged schedule on the Schedules screen', () => {
  const openDashboard = dashboardSession();

  it('is marked and explained, its run now and resume disabled, and a replace repairs it', async () => {
    const { page, server } = await openDashboard({
      before: async (db) => {
        for (const name of ['broken', 'nightly'])
          await semaforoJson(db, ['schedule', 'add', name, '--every', '1h', '--', 'echo', name]);
        await semaforoJson(db, ['schedule', 'pause', 'broken']);
        const raw = new Database(db);
        raw.prepare("UPDATE schedules SET template = 'not json' WHERE name = 'broken'").run();
        raw.close();
      },
    });
    await go(page, 'Schedules');
    await page.getByTestId('schedule-summary').getByText('2 schedules, 1 damaged').waitFor();

    const broken = page.locator('[data-schedule="broken"]');
    // in words, not colour only
    await broken.locator('[data-state="damaged"]').getByText('damaged').waitFor();
    const note = broken.getByTestId('schedule-problem');
    expect(await note.textContent()).toBe(
      `⚠ Damaged: ${PROBLEM}. It never runs: edit it to replace it whole, or delete it.`,
    );
    await broken.getByTestId('next-due').getByText('never: damaged').waitFor();
    const noteId = await note.getAttribute('id');
    for (const name of ['Run now', 'Resume']) {
      const button = broken.getByRole('button', { name });
      expect(await button.isDisabled(), name).toBe(true);
      // the reason is the note, read with the button
      expect(await button.getAttribute('aria-describedby')).toBe(noteId);
    }
    for (const name of ['Edit', 'Delete'])
      expect(await broken.getByRole('button', { name }).isEnabled(), name).toBe(true);
    await screenshot(page, 'schedules-damaged');

    const nightly = page.locator('[data-schedule="nightly"]');
    await nightly.locator('[data-state="active"]').waitFor();
    expect(await nightly.getByTestId('schedule-problem').count()).toBe(0);
    expect(await nightly.getByRole('button', { name: 'Run now' }).isEnabled()).toBe(true);

    // The edit form says what is wrong and that saving repairs it.
    await broken.getByRole('button', { name: 'Edit' }).click();
    const form = page.getByRole('form', { name: 'Edit schedule broken' });
    await form.getByTestId('schedule-problem').getByText(`This schedule is damaged: ${PROBLEM}.`).waitFor();
    await go(page, 'Schedules');

    // Replaced whole (another client): the list picks it up, no longer damaged.
    const repaired = await apiCall<Schedule>(server, 'updateSchedule', {
      name: 'broken',
      schedule: { name: 'broken', everyMs: 3600_000, task: { kind: 'sleep', payload: { ms: 1 } } },
    });
    expect(repaired).not.toHaveProperty('problem');
    await broken.locator('[data-state="active"]').waitFor();
    expect(await broken.getByTestId('schedule-problem').count()).toBe(0);
    expect(await broken.getByRole('button', { name: 'Run now' }).isEnabled()).toBe(true);
    await page
      .getByTestId('schedule-summary')
      .getByText(/^2 schedules · next run/)
      .waitFor();
  });
});
