import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createDesktopController, type DesktopHost } from '../../electron/main/desktop-controller.ts';
import { createIpcHandler } from '../../electron/main/ipc-binding.ts';
import type { Notice } from '../../electron/main/policy/notification-policy.ts';
import type { TrayView } from '../../electron/main/policy/tray-model.ts';
import { WEBHOOK_GROUP } from '../../electron/main/policy/webhook.ts';
import { createQueueService } from '../../electron/core/service.ts';
import { silentLogger } from '../../electron/core/logger.ts';
import { parseInput, scheduleSpecSchema } from '../../shared/schemas.ts';
import { testEngine, waitFor } from '../helpers.ts';

function fakeHost() {
  const host = {
    views: [] as TrayView[],
    notices: [] as Notice[],
    opened: [] as unknown[],
    login: false,
    quit: 0,
  };
  const impl: DesktopHost = {
    showTray: (v) => host.views.push(v),
    notify: (n) => host.notices.push(n),
    openWindow: (t) => host.opened.push(t ?? null),
    quit: () => host.quit++,
    getLaunchAtLogin: () => host.login,
    setLaunchAtLogin: (on) => (host.login = on),
  };
  return { host, impl };
}

const failing = (name: string, group = 'vendor') => ({
  kind: 'shell',
  name,
  group,
  maxAttempts: 1,
  payload: { command: process.execPath, args: ['-e', 'process.exit(4)'] },
});

let closeServer: (() => void) | null = null;
afterEach(() => closeServer?.());

/** A loopback server that keeps every JSON body POSTed to it (closed after the test). */
async function webhookReceiver(): Promise<{ received: unknown[]; url: string }> {
  const received: unknown[] = [];
  const hook = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push(JSON.parse(body));
      res.end('ok');
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  closeServer = () => hook.close();
  return { received, url: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook` };
}

describe('desktop controller (tray, notifications, webhook) on a real engine', () => {
  it('turns red and notifies when a task fails for good, posts the webhook through the queue, calms when seen', async () => {
    const { received, url } = await webhookReceiver();

    const engine = await testEngine({ eventIntervalMs: 20 });
    await engine.updateSettings({
      failureWebhook: url,
    });
    const { host, impl } = fakeHost();
    const controller = createDesktopController({ engine, host: impl, logger: silentLogger });
    await controller.refresh();
    expect(controller.view?.state).toBe('idle');

    engine.start();
    const { task } = await engine.enqueue(failing('nightly report'));
    await waitFor(() => host.notices.length === 1, 'a notification');
    expect(host.notices[0]).toMatchObject({
      taskId: task.id,
      title: 'Task failed: nightly report',
      count: 1,
    });
    await waitFor(() => controller.view?.state === 'attention', 'the red light');
    expect(controller.view?.tooltip).toMatch(/1 failed/);

    await waitFor(() => received.length === 1, 'the webhook delivery');
    expect(received[0]).toMatchObject({
      event: 'task.failed',
      task: { id: task.id, name: 'nightly report' },
    });
    const delivery = (await engine.listTasks({ group: WEBHOOK_GROUP })).tasks[0]!;
    await waitFor(
      async () => (await engine.getTask(delivery.id)).status === 'done',
      'the delivery task to finish',
    );

    await controller.markFailuresSeen();
    expect(controller.view?.state).not.toBe('attention');
    controller.dispose();
    await engine.stop();
  });

  it("announces a schedule's alarm once: a notification, the red light, the webhook; calm once it clears", async () => {
    const { received, url } = await webhookReceiver();
    let offset = 0;
    const clock = { now: () => Date.now() + offset };
    const engine = await testEngine({ eventIntervalMs: 20, scheduleIntervalMs: 50, clock });
    await engine.updateSettings({
      failureWebhook: url,
    });
    await engine.createSchedule(
      parseInput(scheduleSpecSchema, {
        name: 'nightly-dump',
        everyMs: 3600_000,
        task: { kind: 'sleep', payload: { ms: 0 } },
        alarms: { graceMs: 600_000 },
      }),
    );
    const { host, impl } = fakeHost();
    const controller = createDesktopController({ engine, host: impl, logger: silentLogger });
    offset = 3600_000 + 660_000; // the due time passed 11 minutes ago while nothing ran
    engine.start();
    await waitFor(() => host.notices.length === 1, 'a notification');
    expect(host.notices[0]).toMatchObject({
      title: 'Schedule nightly-dump is missed',
      body: 'not enqueued within 10m of its due time: is a worker or the tray app running?',
      taskId: null,
    });
    await waitFor(() => received.length === 1, 'the webhook delivery');
    expect(received[0]).toMatchObject({
      event: 'schedule.alarm',
      alarm: { schedule: 'nightly-dump', state: 'missed' },
    });
    // The scheduler skips the missed run (missed: skip): the alarm clears, the light calms.
    await waitFor(() => controller.view?.state !== 'attention', 'the light calms');
    expect(host.views.some((v) => v.state === 'attention' && /1 schedule alarm/.test(v.tooltip))).toBe(true);
    expect(host.notices).toHaveLength(1);
    controller.dispose();
    await engine.stop();
  });

  it('aggregates a burst of failures in one group into one notification', async () => {
    const engine = await testEngine({ eventIntervalMs: 20 });
    const { host, impl } = fakeHost();
    const controller = createDesktopController({ engine, host: impl, logger: silentLogger });
    await engine.updateSettings({ globalConcurrency: 10 });
    await engine.enqueueMany(Array.from({ length: 7 }, (_, i) => failing(`scrape ${i}`)));
    engine.start();
    await waitFor(async () => (await engine.stats(0)).counts.failed === 7, 'seven failures');
    await engine.whenIdle();
    await controller.refresh();
    // However the seven were split across refreshes: one notice now, the rest held for the minute.
    expect(host.notices.length).toBe(1);
    expect(host.notices[0]!.group).toBe('vendor');
    controller.dispose();
    await engine.stop();
  });

  it('carries out tray actions: pause/resume, retry all failed, notifications toggle, open, quit', async () => {
    const engine = await testEngine();
    const { host, impl } = fakeHost();
    const controller = createDesktopController({ engine, host: impl, logger: silentLogger });
    await controller.handle({ type: 'pause' });
    expect(controller.view?.state).toBe('paused');
    expect((await engine.stats(0)).settings.paused).toBe(true);
    await controller.handle({ type: 'resume' });
    expect((await engine.stats(0)).settings.paused).toBe(false);

    await controller.handle({ type: 'toggle-notifications' });
    expect((await engine.stats(0)).settings.notifications.enabled).toBe(false);
    await controller.handle({ type: 'toggle-login' });
    expect(host.login).toBe(true);
    await controller.handle({ type: 'open-task', taskId: 3 });
    await controller.handle({ type: 'open' });
    expect(host.opened).toEqual([{ taskId: 3 }, null]);
    await controller.handle({ type: 'quit' });
    expect(host.quit).toBe(1);
    controller.dispose();
  });

  it('shows the schedule due next in the tray menu', async () => {
    const engine = await testEngine({ eventIntervalMs: 20 });
    const { host, impl } = fakeHost();
    const controller = createDesktopController({ engine, host: impl, logger: silentLogger });
    await engine.createSchedule({
      name: 'nightly-backup',
      cron: '30 2 * * *',
      task: { kind: 'sleep', payload: { ms: 0 } },
    });
    await engine.createSchedule({
      name: 'poll',
      everyMs: 300_000,
      task: { kind: 'sleep', payload: { ms: 0 } },
    });
    const label = await waitFor(
      () => host.views.at(-1)?.menu.find((m) => m.kind === 'label' && m.label.startsWith('Next:')),
      'the next schedule in the menu',
    );
    expect(label).toMatchObject({ label: expect.stringMatching(/^Next: poll in (5m|4m5\ds)$/) });
    controller.dispose();
  });
});

describe('IPC binding over the real service', () => {
  const trusted = () => ({ webContentsId: 1, urlPrefix: 'file:///opt/semaforo/dist/renderer/' });
  const fromWindow = {
    webContentsId: 1,
    frameUrl: 'file:///opt/semaforo/dist/renderer/index.html',
    isMainFrame: true,
  };

  it('answers the window with contract results and validation errors as data', async () => {
    const engine = await testEngine();
    const handle = createIpcHandler({ service: createQueueService(engine), trusted, logger: silentLogger });
    const ok = await handle(fromWindow, 'enqueue', { kind: 'sleep', payload: { ms: 0 } });
    expect(ok).toMatchObject({ ok: true, value: { created: true, task: { id: 1 } } });
    expect(await handle(fromWindow, 'stats', null)).toMatchObject({
      ok: true,
      value: { counts: { pending: 1 } },
    });
    expect(await handle(fromWindow, 'enqueue', { kind: 'sleep', payload: { ms: -1 } })).toMatchObject({
      ok: false,
      error: { name: 'ValidationError', issues: [{ path: 'payload.ms' }] },
    });
    expect(await handle(fromWindow, 'dropTables', {})).toMatchObject({
      ok: false,
      error: { name: 'NotFoundError' },
    });
    expect(await handle(fromWindow, 42, {})).toMatchObject({ ok: false, error: { name: 'ValidationError' } });
  });

  it('refuses messages from another webContents, an iframe or a page loaded from elsewhere', async () => {
    const engine = await testEngine();
    const handle = createIpcHandler({ service: createQueueService(engine), trusted, logger: silentLogger });
    for (const sender of [
      { ...fromWindow, webContentsId: 2 },
      { ...fromWindow, isMainFrame: false },
      { ...fromWindow, frameUrl: 'https://evil.example/' },
      { ...fromWindow, frameUrl: undefined },
    ]) {
      expect(await handle(sender, 'retryFailed', null)).toMatchObject({
        ok: false,
        error: { name: 'Forbidden' },
      });
    }
    expect((await engine.listTasks()).total).toBe(0);
  });
});
