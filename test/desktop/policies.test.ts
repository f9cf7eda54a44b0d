import { describe, expect, it } from 'vitest';
import { emptyCounts, type StatusCounts, type Task } from '../../shared/domain.ts';
import { NotificationPolicy, type Failure } from '../../electron/main/policy/notification-policy.ts';
import { trayView, type TrayInput, type TrayMenuItem } from '../../electron/main/policy/tray-model.ts';
import { WEBHOOK_GROUP, webhookSpecs } from '../../electron/main/policy/webhook.ts';

const NOW = Date.parse('2026-12-03T03:47:00Z');

function task(over: Partial<Task>): Task {
  return {
    id: 1,
    kind: 'http',
    name: 'vendor report',
    group: 'vendor',
    priority: 5,
    status: 'failed',
    attempts: 3,
    maxAttempts: 3,
    payload: {},
    result: null,
    error: 'HTTP 500',
    runAt: NOW - 10_000,
    timeout: null,
    unique: null,
    createdAt: NOW - 60_000,
    startedAt: NOW - 5000,
    finishedAt: NOW - 120_000,
    progress: null,
    leaseOwner: null,
    leaseExpiresAt: null,
    cancelRequested: false,
    retryAfterCount: 0,
    reservedFor: null,
    scheduleId: null,
    uses: [],
    ...over,
  };
}

function input(
  over: Partial<Omit<TrayInput, 'counts'>> & { counts?: Partial<StatusCounts> } = {},
): TrayInput {
  return {
    paused: false,
    recentFailures: [],
    seenFailuresUntil: 0,
    now: NOW,
    launchAtLogin: false,
    notificationsEnabled: true,
    ...over,
    counts: { ...emptyCounts(), ...over.counts },
  };
}

const labels = (menu: TrayMenuItem[]) => menu.map((m) => (m.kind === 'separator' ? '---' : m.label));

describe('tray model', () => {
  it('says in the menu and tooltip why tasks wait, unless a worker will simply take them', () => {
    const waiting = {
      code: 'group-full' as const,
      message: 'group vendor is full (1 of 1 running)',
      short: 'group full 1/1',
    };
    const v = trayView(input({ counts: { running: 1, pending: 4 }, waiting }));
    expect(labels(v.menu)).toContain('4 waiting: group vendor is full (1 of 1 running)');
    expect(v.tooltip).toBe(
      'Semaforo — 1 running, 4 waiting, 0 failed (group vendor is full (1 of 1 running))',
    );
    const ready = trayView(
      input({ counts: { pending: 4 }, waiting: { code: 'ready', message: 'ready: …', short: 'ready' } }),
    );
    expect(labels(ready.menu)).toContain('4 waiting');
    expect(ready.tooltip).toBe('Semaforo — 0 running, 4 waiting, 0 failed');
    // A reason that starts with the word already does not say it twice.
    const reason = (message: string) =>
      labels(trayView(input({ counts: { pending: 4 }, waiting: { code: 'gate', message, short: '' } })).menu);
    expect(reason("waiting: load 1.9 per core > 0.8 (the queue's machine gate)")).toContain(
      "4 waiting: load 1.9 per core > 0.8 (the queue's machine gate)",
    );
    expect(reason('waiting for gpu: no such resource')).toContain('4 waiting for gpu: no such resource');
  });

  it('names the store the queue is on, just above Quit', () => {
    const v = trayView(input({ queue: 'PostgreSQL postgres@db.lan:5432/jobs (schema ops)' }));
    const items = v.menu.map((m) => ('label' in m ? m.label : '—'));
    expect(items.slice(-2)).toEqual(['PostgreSQL postgres@db.lan:5432/jobs (schema ops)', 'Quit Semaforo']);
    expect(labels(trayView(input()).menu).some((l) => /SQLite|PostgreSQL/.test(l))).toBe(false);
    // Too long for a menu: cut in the middle, so the schema (or file name) still shows.
    const long = 'PostgreSQL semaforo_ops@db-primary.internal.example.com:5432/jobs (schema nightly)';
    const cut = trayView(input({ queue: long })).menu.at(-2)!;
    expect('label' in cut && cut.label).toBe(
      'PostgreSQL semaforo_ops@db-prima….com:5432/jobs (schema nightly)',
    );
  });

  it('is idle (green) with nothing to do, busy (amber) with work, with the counts in the tooltip', () => {
    expect(trayView(input()).state).toBe('idle');
    const busy = trayView(input({ counts: { running: 2, pending: 10, retrying: 4 } }));
    expect(busy).toMatchObject({
      state: 'busy',
      icon: 'tray-busy',
      title: '2',
      tooltip: 'Semaforo — 2 running, 14 waiting, 0 failed',
    });
    expect(labels(busy.menu).slice(0, 3)).toEqual(['2 running', '14 waiting', '0 failed']);
  });

  it('asks for attention (red) while a failure is unseen, and stops once the user has looked', () => {
    const failure = task({ id: 7, finishedAt: NOW - 30_000 });
    const unseen = trayView(input({ counts: { failed: 1, running: 1 }, recentFailures: [failure] }));
    expect(unseen.state).toBe('attention');
    const seen = trayView(
      input({ counts: { failed: 1, running: 1 }, recentFailures: [failure], seenFailuresUntil: NOW - 1000 }),
    );
    expect(seen.state).toBe('busy');
  });

  it('is paused (grey) when the queue is paused, unless a failure needs attention', () => {
    expect(trayView(input({ paused: true, counts: { pending: 3 } })).state).toBe('paused');
    const menu = trayView(input({ paused: true })).menu;
    expect(labels(menu)).toContain('Resume queue');
    expect(labels(menu)).not.toContain('Pause queue');
    expect(
      trayView(input({ paused: true, counts: { failed: 1 }, recentFailures: [task({ finishedAt: NOW })] }))
        .state,
    ).toBe('attention');
  });

  it('lists at most five recent failures with their age, each opening its task', () => {
    const failures = Array.from({ length: 8 }, (_, i) =>
      task({ id: 100 + i, name: `job ${i}`, finishedAt: NOW - i * 3600_000 }),
    );
    const v = trayView(input({ counts: { failed: 8 }, recentFailures: failures }));
    const items = v.menu.filter((m) => m.kind === 'action' && m.action.type === 'open-task');
    expect(items).toHaveLength(5);
    expect(items[0]).toMatchObject({
      label: '✗ job 0 — just now',
      action: { type: 'open-task', taskId: 100 },
    });
    expect(items[2]).toMatchObject({ label: '✗ job 2 — 2h ago' });
    const retry = v.menu.find((m) => m.kind === 'action' && m.action.type === 'retry-failed');
    expect(retry).toMatchObject({ label: 'Retry all failed (8)', enabled: true });
  });

  it('ends with the fixed actions, hides "Launch at login" where the platform has none', () => {
    const v = trayView(input({ launchAtLogin: null }));
    expect(labels(v.menu).slice(3)).toEqual([
      '---',
      'Pause queue',
      'Retry all failed',
      'Open Semaforo',
      '---',
      'Notify on failures',
      '---',
      'Quit Semaforo',
    ]);
    expect(labels(trayView(input({ launchAtLogin: true })).menu)).toContain('Launch at login');
  });
});

describe('notification policy', () => {
  const on = { enabled: true, groups: null };
  const f = (taskId: number, group = 'vendor'): Failure => ({
    taskId,
    name: `task ${taskId}`,
    group,
    error: 'boom',
  });

  it('shows one failure at once, naming the task; clicking opens it', () => {
    const p = new NotificationPolicy();
    expect(p.offer([f(1)], on, NOW)).toEqual([
      { group: 'vendor', count: 1, taskId: 1, title: 'Task failed: task 1', body: 'boom (group vendor)' },
    ]);
  });

  it('aggregates a burst into one notice per group per minute', () => {
    const p = new NotificationPolicy(60_000);
    const first = p.offer([f(1), f(2), f(3, 'backups')], on, NOW);
    expect(first.map((n) => [n.group, n.count, n.title])).toEqual([
      ['vendor', 2, '2 tasks failed in group vendor'],
      ['backups', 1, 'Task failed: task 3'],
    ]);
    // Inside the minute: held, nothing shown.
    for (let i = 4; i <= 10; i++) expect(p.offer([f(i)], on, NOW + i * 1000)).toEqual([]);
    expect(p.due(NOW + 59_999)).toEqual([]);
    expect(p.nextDueAt()).toBe(NOW + 60_000);
    const later = p.due(NOW + 60_000);
    expect(later).toHaveLength(1);
    expect(later[0]).toMatchObject({ title: '7 tasks failed in group vendor', taskId: null, count: 7 });
    expect(later[0]!.body).toBe('task 4, task 5, task 6, and 4 more');
    expect(p.nextDueAt()).toBeNull();
  });

  it('is silent when turned off, and only speaks for the chosen groups', () => {
    const p = new NotificationPolicy();
    expect(p.offer([f(1)], { enabled: false, groups: null }, NOW)).toEqual([]);
    expect(
      p.offer([f(2), f(3, 'backups')], { enabled: true, groups: ['backups'] }, NOW).map((n) => n.group),
    ).toEqual(['backups']);
  });
});

describe('failure webhook', () => {
  it('turns each failure into a POST through the queue, once per failure, never for its own deliveries', () => {
    const specs = webhookSpecs(
      [task({ id: 5 }), task({ id: 6, group: WEBHOOK_GROUP, name: 'failure webhook for task 5' })],
      'https://hooks.example.com/semaforo',
    );
    expect(specs).toHaveLength(1);
    expect(specs[0]).toMatchObject({
      kind: 'http',
      group: WEBHOOK_GROUP,
      maxAttempts: 10,
      unique: `webhook:5:${NOW - 120_000}`,
      payload: { method: 'POST', url: 'https://hooks.example.com/semaforo' },
    });
    const body = JSON.parse((specs[0]!.payload as { body: string }).body);
    expect(body).toMatchObject({
      event: 'task.failed',
      task: { id: 5, name: 'vendor report', error: 'HTTP 500' },
    });
    expect(webhookSpecs([task({})], null)).toEqual([]);
  });
});
