/**
 * The Schedules screen end to end: the built renderer in headless Chromium against a spawned
 * `semaforo serve` (whose dispatcher also fires schedules and runs their tasks). What the form
 * writes is checked through the same JSON API the page uses.
 */
import fs from 'node:fs';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { Schedule, TaskWithHistory } from '../../shared/domain.ts';
import {
  buildScheduleSpec,
  EMPTY_SCHEDULE_FORM,
  placeScheduleIssues,
  scheduleFormFrom,
} from '../../renderer/state/schedule-form.ts';
import { EMPTY_FORM } from '../../renderer/state/task-form.ts';
import { apiCall, go, screenshot } from './dashboard-page.ts';
import { CHROMIUM, dashboardSession } from './harness.ts';

const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) console.log(`skipped: no Chromium at ${CHROMIUM}`);

describe('schedule form model', () => {
  it('sends an interval in milliseconds, leaves the task unnamed, and puts issues on their fields', () => {
    const form = {
      ...EMPTY_SCHEDULE_FORM,
      name: 'heartbeat',
      mode: 'interval' as const,
      every: '1h30m',
      task: { ...EMPTY_FORM, kind: 'sleep', ms: '50' },
    };
    const { spec, issues } = buildScheduleSpec(form);
    expect(issues).toEqual([]);
    expect(spec).toEqual({
      name: 'heartbeat',
      everyMs: 90 * 60_000,
      task: { kind: 'sleep', priority: 5, payload: { ms: 50 } },
      missed: 'skip',
      overlap: 'allow',
      enabled: true,
    });
    const bad = buildScheduleSpec({
      ...form,
      mode: 'cron',
      cron: '61 * * * *',
      task: { ...form.task, priority: '12' },
    });
    const placed = placeScheduleIssues(bad.issues, 'sleep');
    expect(placed.schedule.cron).toMatch(/not a valid 5-field cron expression.*minute: 61/);
    expect(placed.task.priority).toBe('must be an integer from 0 to 9');
    // updateSchedule reports under `schedule.`: the same fields.
    const server = placeScheduleIssues(
      [{ path: 'schedule.task.payload.ms', message: 'must be a number' }],
      'sleep',
    );
    expect(server.task.ms).toBe('must be a number');
    expect(server.other).toEqual([]);
  });

  it('edits a stored schedule without rounding its interval', () => {
    const stored: Schedule = {
      id: 1,
      name: 'odd',
      cron: null,
      timezone: null,
      everyMs: 86_400_000 + 3_723_000,
      task: {
        kind: 'sleep',
        name: null,
        group: 'default',
        priority: 5,
        maxAttempts: 3,
        timeout: null,
        payload: { ms: 5 },
      },
      missed: 'once',
      overlap: 'skip',
      enabled: false,
      nextDueAt: null,
      lastDueAt: null,
      lastTaskStartedAt: null,
      lastTaskFinishedAt: null,
      alarms: { graceMs: null, maxRuntimeMs: null, minRuntimeMs: null },
      health: { state: 'ok', since: null, message: null },
      lastEnqueuedAt: null,
      lastTaskId: null,
      lastTaskStatus: null,
      skippedOverlap: 0,
      skippedMissed: 0,
      createdAt: 0,
      updatedAt: 0,
      upcoming: [],
    };
    const form = scheduleFormFrom(stored);
    expect(form.every).toBe('1d1h2m3s');
    expect(buildScheduleSpec(form).spec).toMatchObject({ everyMs: 86_400_000 + 3_723_000, enabled: false });
  });
});

describe.skipIf(!hasChromium)('Schedules screen in headless Chromium against semaforo serve', () => {
  const openDashboard = dashboardSession();

  /** A fresh queue, `serve` on it, and the dashboard open on the Schedules screen. */
  async function open() {
    const { page, server } = await openDashboard();
    await go(page, 'Schedules');
    return { page, server };
  }

  const row = (page: Page, name: string) => page.locator(`[data-schedule="${name}"]`);
  const previewTimes = (page: Page) =>
    page.getByRole('list', { name: 'Next five runs' }).getByRole('listitem');

  async function fivePreviewTimes(page: Page): Promise<string[]> {
    await previewTimes(page).nth(4).waitFor();
    return previewTimes(page).allTextContents();
  }

  it('creates an interval and a cron schedule through the form; an invalid cron is refused', async () => {
    const { page, server } = await open();
    await page.getByText('No schedules yet').waitFor();
    await page.locator('.empty-state').getByRole('button', { name: 'New schedule' }).click();
    let form = page.getByRole('form', { name: 'New schedule' });

    // Interval: the preview follows the text as it is typed.
    await form.getByLabel('Schedule name').fill('heartbeat');
    await form.getByRole('radio', { name: 'Interval' }).check();
    await form.getByLabel('Every', { exact: true }).fill('5x');
    await page.getByTestId('preview-problem').getByText('Interval is not a duration').waitFor();
    await form.getByLabel('Every', { exact: true }).fill('5m');
    expect(await fivePreviewTimes(page)).toHaveLength(5);
    await previewTimes(page).first().getByText('in 5 min').waitFor();
    await form.getByLabel('Kind').selectOption('sleep');
    await form.getByLabel('Milliseconds').fill('50');
    await screenshot(page, 'schedule-form-interval');
    await form.getByRole('button', { name: 'Create schedule' }).click();
    await page
      .getByRole('status')
      .getByText(/Schedule heartbeat created: next run in 5 min/)
      .waitFor();
    await row(page, 'heartbeat').getByText('every 5m').waitFor();
    await row(page, 'heartbeat').getByTestId('next-due').getByText('in 5 min').waitFor();

    // Cron: an invalid expression shows croner's reason instead of times, and saving writes nothing.
    await page.getByRole('button', { name: 'New schedule' }).click();
    form = page.getByRole('form', { name: 'New schedule' });
    await form.getByLabel('Schedule name').fill('nightly');
    await form.getByLabel('Cron expression').fill('61 * * * *');
    await page
      .getByTestId('preview-problem')
      .getByText(/Cron expression is not a valid 5-field cron expression.*minute: 61/)
      .waitFor();
    expect(await previewTimes(page).count()).toBe(0);
    await form.getByLabel('Kind').selectOption('sleep');
    await form.getByLabel('Milliseconds').fill('50');
    await form.getByRole('button', { name: 'Create schedule' }).click();
    await page
      .locator('#schedule-cron-message')
      .getByText(/minute: 61/)
      .waitFor();
    await form.getByRole('alert').getByText('One field needs fixing').waitFor();
    expect(await form.getByLabel('Cron expression').getAttribute('aria-invalid')).toBe('true');
    await screenshot(page, 'schedule-form-invalid-cron');
    expect((await apiCall<Schedule[]>(server, 'listSchedules')).map((s) => s.name)).toEqual(['heartbeat']);

    // A zone the server does not know is named too; a real one shows 03:00 in that zone.
    await form.getByLabel('Cron expression').fill('0 3 * * *');
    await form.getByLabel('Time zone').fill('Mars/Olympus');
    await page
      .getByTestId('preview-problem')
      .getByText(/Time zone is not a known IANA time zone/)
      .waitFor();
    await form.getByLabel('Time zone').fill('America/New_York');
    const times = await fivePreviewTimes(page);
    for (const t of times) expect(t).toMatch(/\b03:00\b/);
    await page.getByText('in America/New_York').waitFor();
    await form.getByLabel('Overlapping runs').selectOption('skip');
    await form
      .getByText('A due time is skipped (and counted) while the previous run is not finished.')
      .waitFor();
    await form.getByRole('button', { name: 'Create schedule' }).click();
    await row(page, 'nightly').getByText('0 3 * * * (America/New_York)').waitFor();

    const nightly = await apiCall<Schedule>(server, 'getSchedule', { name: 'nightly' });
    expect(nightly).toMatchObject({
      cron: '0 3 * * *',
      timezone: 'America/New_York',
      everyMs: null,
      overlap: 'skip',
      missed: 'skip',
      enabled: true,
      task: { kind: 'sleep', name: null, payload: { ms: 50 } },
    });
    expect(nightly.upcoming).toHaveLength(5);
    const heartbeat = await apiCall<Schedule>(server, 'getSchedule', { name: 'heartbeat' });
    expect(heartbeat).toMatchObject({ cron: null, everyMs: 300_000, task: { kind: 'sleep' } });
    await screenshot(page, 'schedules');
  });

  it("sets a schedule's alarms in the form, keeps them through an edit, and marks a run that was too fast", async () => {
    const { page, server } = await open();
    await page.getByText('No schedules yet').waitFor();
    await page.locator('.empty-state').getByRole('button', { name: 'New schedule' }).click();
    let form = page.getByRole('form', { name: 'New schedule' });
    await form.getByLabel('Schedule name').fill('db-dump');
    await form.getByRole('radio', { name: 'Interval' }).check();
    await form.getByLabel('Every', { exact: true }).fill('1h');
    await form.getByLabel('Kind').selectOption('sleep');
    await form.getByLabel('Milliseconds').fill('0');
    await form.getByLabel('Alarm if running longer than').fill('2x');
    await form.getByLabel('Alarm if done faster than').fill('1h');
    await form.getByRole('button', { name: 'Create schedule' }).click();
    await page
      .locator('#schedule-max-runtime-message')
      .getByText(/not a duration/)
      .waitFor();
    await form.getByLabel('Alarm if running longer than').fill('2h');
    await form.getByLabel('Alarm if not started within').fill('15m');
    await form.getByRole('button', { name: 'Create schedule' }).click();
    const r = row(page, 'db-dump');
    await r.getByTestId('alarms').getByText('starts within 15m, runs at most 2h, runs at least 1h').waitFor();
    const alarms = { graceMs: 900_000, maxRuntimeMs: 7200_000, minRuntimeMs: 3600_000 };
    expect((await apiCall<Schedule>(server, 'getSchedule', { name: 'db-dump' })).alarms).toEqual(alarms);

    // A run of a few milliseconds against a minimum of an hour: the row says so.
    await r.getByRole('button', { name: 'Run now' }).click();
    await r
      .locator('[data-health="too-fast"]')
      .getByText(/ran too fast:.*under the 1h expected/)
      .waitFor({ timeout: 15_000 });

    // Editing something else keeps the alarms.
    await r.getByRole('button', { name: 'Edit' }).click();
    form = page.getByRole('form', { name: 'Edit schedule db-dump' });
    expect(await form.getByLabel('Alarm if not started within').inputValue()).toBe('15m');
    await form.getByLabel('Every', { exact: true }).fill('2h');
    await form.getByRole('button', { name: 'Save schedule' }).click();
    await r.getByText('every 2h').waitFor();
    expect((await apiCall<Schedule>(server, 'getSchedule', { name: 'db-dump' })).alarms).toEqual(alarms);
  });

  it('pauses, resumes, runs now (showing the task it made), edits from the keyboard and deletes', async () => {
    const { page, server } = await open();
    await page.getByText('No schedules yet').waitFor();
    // Made by another client: the open list picks it up from the change event.
    await apiCall(server, 'createSchedule', {
      name: 'hourly-report',
      everyMs: 3600_000,
      task: { kind: 'sleep', payload: { ms: 50 } },
    });
    const r = row(page, 'hourly-report');
    await r.getByText('every 1h').waitFor();
    await r.getByTestId('last-run').getByText('never').waitFor();

    await r.getByRole('button', { name: 'Pause' }).click();
    await r.locator('[data-state="paused"]').waitFor();
    await r.getByTestId('next-due').getByText('paused').waitFor();
    expect((await apiCall<Schedule>(server, 'getSchedule', { name: 'hourly-report' })).enabled).toBe(false);
    await r.getByRole('button', { name: 'Resume' }).click();
    await r.locator('[data-state="active"]').waitFor();
    await r.getByTestId('next-due').getByText('in 1 h').waitFor();
    expect((await apiCall<Schedule>(server, 'getSchedule', { name: 'hourly-report' })).enabled).toBe(true);

    // Run now: serve's worker runs the task; the row shows its status, which opens it.
    await r.getByRole('button', { name: 'Run now' }).click();
    await page
      .getByRole('status')
      .getByText(/Task \d+ “hourly-report” queued from schedule hourly-report/)
      .waitFor();
    const chip = r.getByTestId('last-run').getByRole('button', { name: /task \d+/ });
    await chip.locator('[data-status="done"]').waitFor({ timeout: 15_000 });
    const s = await apiCall<Schedule>(server, 'getSchedule', { name: 'hourly-report' });
    expect(s.lastTaskStatus).toBe('done');
    await chip.click();
    const panel = page.getByRole('complementary', { name: 'hourly-report' });
    await panel.locator('[data-status="done"]').waitFor();
    await panel.getByText(`task ${s.lastTaskId} · sleep · group default`).waitFor();
    expect(page.url()).toMatch(new RegExp(`#/schedules/${s.lastTaskId}$`));
    await panel.getByRole('button', { name: 'Close task details' }).click();

    // Enter on a row edits it; the form comes back filled in, and saving keeps what was not changed.
    await r.focus();
    await page.keyboard.press('Enter');
    const form = page.getByRole('form', { name: 'Edit schedule hourly-report' });
    expect(await form.getByLabel('Every', { exact: true }).inputValue()).toBe('1h');
    expect(await form.getByLabel('Milliseconds').inputValue()).toBe('50');
    await form.getByLabel('Every', { exact: true }).fill('10m');
    await previewTimes(page).first().getByText('in 10 min').waitFor();
    await form.getByRole('button', { name: 'Save schedule' }).click();
    await r.getByText('every 10m').waitFor();
    const edited = await apiCall<Schedule>(server, 'getSchedule', { name: 'hourly-report' });
    expect(edited).toMatchObject({ everyMs: 600_000, enabled: true, lastTaskId: s.lastTaskId });

    // At 800x600 the row fits (its actions wrap under the name).
    await page.setViewportSize({ width: 800, height: 600 });
    await screenshot(page, 'schedules-800x600');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(800);
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'schedules-dark-800x600');

    await r.getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete schedule hourly-report?' });
    await dialog.getByText(/tasks it already enqueued stay in the queue/).waitFor();
    await dialog.getByRole('button', { name: 'Delete schedule' }).click();
    await page.getByText('No schedules yet').waitFor();
    expect(await apiCall<Schedule[]>(server, 'listSchedules')).toEqual([]);
    const task = await apiCall<TaskWithHistory>(server, 'getTask', { id: s.lastTaskId });
    expect(task.status).toBe('done');
  });
});
