/**
 * The renderer's pure models, without a browser: what the New task form sends and where its
 * messages go, the last-hour chart's buckets, and how failures are grouped.
 */
import { describe, expect, it } from 'vitest';
import type { Task } from '../../shared/domain.ts';
import { groupFailures } from '../../renderer/state/failure-groups.ts';
import { axisNumber } from '../../renderer/state/format.ts';
import { cancelNotice } from '../../renderer/state/task-actions.ts';
import { SERIES_SHAPES, seriesFrom } from '../../electron/core/policy/throughput-series.ts';
import { groupUpdateFrom, settingsUpdateFrom } from '../../renderer/state/limits-form.ts';
import { mergeFields } from '../../renderer/state/synced-fields.ts';
import { alertsUpdateFrom } from '../../renderer/state/alerts-form.ts';
import { formFromTask } from '../../renderer/state/form-from-task.ts';
import { buildSpec } from '../../renderer/state/spec-from-form.ts';
import { EMPTY_FORM, fieldOf, visibleFields } from '../../renderer/state/task-form.ts';

function task(over: Partial<Task>): Task {
  return {
    id: 1,
    kind: 'shell',
    name: 'a task',
    group: 'default',
    priority: 5,
    status: 'failed',
    attempts: 1,
    maxAttempts: 3,
    payload: {},
    result: null,
    error: null,
    runAt: 0,
    timeout: null,
    unique: null,
    createdAt: 0,
    startedAt: null,
    finishedAt: null,
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

describe('New task form model', () => {
  it('turns the fields into the spec the CLI would send, durations in milliseconds', () => {
    const { spec, issues } = buildSpec({
      ...EMPTY_FORM,
      command: 'rsync',
      args: '-a\n/home/me/photos\n/mnt/backup dir',
      group: 'backups',
      priority: '1',
      maxAttempts: '5',
      timeout: '1h30m',
      delay: '10m',
    });
    expect(issues).toEqual([]);
    expect(spec).toEqual({
      kind: 'shell',
      name: 'rsync -a /home/me/photos /mnt/backup dir',
      group: 'backups',
      priority: 1,
      maxAttempts: 5,
      timeoutMs: 90 * 60_000,
      delayMs: 10 * 60_000,
      payload: { command: 'rsync', args: ['-a', '/home/me/photos', '/mnt/backup dir'] },
    });
  });

  it("reports the shared schema's messages and unreadable text under the field they belong to", () => {
    const { issues } = buildSpec({
      ...EMPTY_FORM,
      command: 'x',
      priority: 'high',
      delay: 'soon',
      group: 'bad group!',
    });
    const byPath = Object.fromEntries(issues.map((i) => [i.path, i.message]));
    expect(byPath.priority).toBe('must be an integer from 0 to 9');
    expect(byPath.delay).toMatch(/is not a duration/);
    expect(byPath.group).toMatch(/must be 1-64 letters/);
    const fields = visibleFields('shell');
    expect(fieldOf('payload.command', fields)).toBe('command');
    expect(fieldOf('payload.args[2]', fields)).toBe('args');
    expect(fieldOf('payload.env.HOME', fields)).toBeNull(); // no env field: goes to the summary
    expect(fieldOf('payload.headers.X-Key', visibleFields('http'))).toBe('headers');
  });

  it('reads http headers as "Name: value" lines and says which line is not one', () => {
    const ok = buildSpec({
      ...EMPTY_FORM,
      kind: 'http',
      method: 'POST',
      url: 'https://x.test/a',
      headers: 'A: 1\nB: two: three',
      body: '{"a":1}',
    });
    expect(ok.spec.payload).toEqual({
      method: 'POST',
      url: 'https://x.test/a',
      headers: { A: '1', B: 'two: three' },
      body: '{"a":1}',
    });
    const bad = buildSpec({ ...EMPTY_FORM, kind: 'http', url: 'https://x.test', headers: 'A: 1\nno colon' });
    expect(bad.issues).toContainEqual({ path: 'payload.headers', message: 'line 2 is not “Name: value”' });
  });

  it('duplicates a task into a form that sends the same spec, keeping payload keys it has no field for', () => {
    const original = task({
      kind: 'shell',
      name: 'nightly',
      group: 'backups',
      priority: 2,
      maxAttempts: 4,
      timeout: 300_000,
      payload: { command: 'backup.sh', args: ['--full'], cwd: '/srv', env: { MODE: 'x' } },
    });
    const form = formFromTask(original);
    expect(form.extra).toEqual({ env: { MODE: 'x' } });
    expect(buildSpec(form).spec).toEqual({
      kind: 'shell',
      name: 'nightly',
      group: 'backups',
      priority: 2,
      maxAttempts: 4,
      timeoutMs: 300_000,
      payload: { env: { MODE: 'x' }, command: 'backup.sh', args: ['--full'], cwd: '/srv' },
    });
    // A timeout no round figure states comes back the same, not rounded to the second.
    const odd = formFromTask({ ...original, timeout: 90_061_500 });
    expect(odd.timeout).toBe('1d1h1m1s500ms');
    expect(buildSpec(odd).spec.timeoutMs).toBe(90_061_500);
    // A kind without its own fields is edited as JSON.
    const custom = formFromTask(task({ kind: 'invoice-pdf', payload: { id: 7 } }));
    expect(buildSpec(custom).spec.payload).toEqual({ id: 7 });
  });
});

describe('limits forms', () => {
  it('reads rates as people type them and blanks as "no limit"', () => {
    expect(groupUpdateFrom({ concurrency: '2', rate: '10/min', burst: '', adaptive: false }).update).toEqual({
      concurrency: 2,
      rate: { limit: 10, periodMs: 60_000 },
      burst: null,
      adaptive: false,
    });
    expect(groupUpdateFrom({ concurrency: '', rate: '', burst: '', adaptive: false }).update).toEqual({
      concurrency: null,
      rate: null,
      burst: null,
      adaptive: false,
    });
    // an adaptive group keeps its rate cap (a new one gets the default)
    expect(groupUpdateFrom({ concurrency: '', rate: '', burst: '', adaptive: true }).update).toEqual({
      concurrency: null,
      burst: null,
      adaptive: true,
    });
    expect(groupUpdateFrom({ concurrency: '0', rate: 'fast', burst: '', adaptive: false }).messages).toEqual({
      concurrency: 'must be an integer from 1 to 10000',
      rate: expect.stringMatching(/"fast" is not a rate/),
    });
    expect(settingsUpdateFrom({ globalConcurrency: '3', retentionDays: '-1' }).messages).toEqual({
      retentionDays: 'must be an integer from 0 to 36500',
    });
  });
});

describe('throughput chart buckets', () => {
  const counts = (done: number, failed: number, groups: Record<string, [number, number]> = {}) => ({
    done,
    failed,
    groups: new Map(Object.entries(groups).map(([g, [d, f]]) => [g, { done: d, failed: f }])),
  });

  it('turns the finished counts per bucket into throughput and failure rate, oldest first', () => {
    const { bucketMs: BUCKET_MS, count: BUCKETS } = SERIES_SHAPES['1h'];
    // Newest first, as the store answers: 2 done in the newest bucket, 1 failed + 1 done in the oldest.
    const buckets = Array.from({ length: BUCKETS }, (_, k) =>
      k === 0
        ? counts(2, 0, { a: [2, 0] })
        : k === BUCKETS - 1
          ? counts(1, 1, { a: [1, 0], b: [0, 1] })
          : counts(0, 0),
    );
    const now = 1_800_000_000_000;
    const s = seriesFrom(buckets, now);
    expect(s.per).toBe('minute');
    expect(s.times).toHaveLength(BUCKETS);
    expect(s.times.at(-1)).toBe(now / 1000);
    expect(s.times[0]).toBe((now - (BUCKETS - 1) * BUCKET_MS) / 1000);
    expect(s.rate[0]).toBeCloseTo(2 / 5);
    expect(s.rate.at(-1)).toBeCloseTo(2 / 5);
    expect(s.failurePercent[0]).toBe(50);
    expect(s.failurePercent[1]).toBeNull(); // nothing finished: no rate, not 0 %
    expect(s.failurePercent.at(-1)).toBe(0);
    expect({ finished: s.finished, failed: s.failed }).toEqual({ finished: 4, failed: 1 });
    // Per group, the most finished first.
    expect(s.groups.map((g) => [g.group, g.finished, g.failed])).toEqual([
      ['a', 3, 0],
      ['b', 1, 1],
    ]);
    expect(s.groups[1]!.failurePercent[0]).toBe(100);
    expect(s.groups[1]!.rate.at(-1)).toBe(0);
  });

  it('counts per hour over a day and a week', () => {
    const now = 1_800_000_000_000;
    const day = seriesFrom([counts(120, 0, { a: [120, 0] })], now, '24h');
    expect(day).toMatchObject({ per: 'hour', bucketMs: 3600_000 });
    expect(day.times).toHaveLength(24);
    expect(day.rate.at(-1)).toBe(120);
    const week = seriesFrom([counts(120, 0)], now, '7d');
    expect(week.times).toHaveLength(28);
    expect(week.times[0]).toBe((now - 27 * 6 * 3600_000) / 1000);
    expect(week.rate.at(-1)).toBe(20); // 120 in six hours
  });
});

describe('failure groups', () => {
  it('groups failed tasks by kind and error, ignoring the numbers that differ between runs', () => {
    const groups = groupFailures([
      task({ id: 3, error: '"sync" exited with code 2 after 1.5 s\nstack…' }),
      task({ id: 2, error: '"sync" exited with code 2 after 3 s' }),
      task({ id: 1, kind: 'http', error: 'HTTP 503 from https://x.test' }),
      task({ id: 4, error: null }),
      task({ id: 5, error: '"sync" exited with code 3 after 2 s' }),
      task({ id: 6, kind: 'http', error: 'HTTP 503 from https://x.test' }),
    ]);
    expect(groups.map((g) => [g.kind, g.error, g.tasks.map((t) => t.id)])).toEqual([
      ['shell', '"sync" exited with code 2 after 1.5 s', [3, 2]],
      ['http', 'HTTP 503 from https://x.test', [1, 6]],
      ['shell', 'no error message', [4]],
      ['shell', '"sync" exited with code 3 after 2 s', [5]],
    ]);
  });
});

describe('chart axis labels', () => {
  it('stay short for big rates and exact for small ones', () => {
    expect([0, 0.05, 0.0333, 0.004, 2.5, 12, 1200, 1250, 13_333.3333].map(axisNumber)).toEqual([
      '0',
      '0.05',
      '0.03',
      '0.004',
      '2.5',
      '12',
      '1.2k',
      '1.3k',
      '13k',
    ]);
  });
});

describe('cancel notices', () => {
  it('name only what happened', () => {
    expect(cancelNotice({ cancelled: [], requested: [4] })).toBe('1 running task is being stopped');
    expect(cancelNotice({ cancelled: [1, 2], requested: [] })).toBe('2 tasks cancelled');
    expect(cancelNotice({ cancelled: [1], requested: [4, 5] })).toBe(
      '1 task cancelled; 2 running tasks are being stopped',
    );
    expect(cancelNotice({ cancelled: [], requested: [] })).toMatch(/^Nothing to cancel/);
  });
});

describe('a form over saved values that change elsewhere', () => {
  it('takes the new value for untouched fields and keeps what was typed in edited ones', () => {
    const base = { webhook: '', groups: '', notify: true };
    const typed = { ...base, groups: 'backups' };
    const next = { webhook: 'https://other.test/h', groups: 'vendor', notify: false };
    expect(mergeFields(base, typed, next)).toEqual({
      webhook: 'https://other.test/h',
      groups: 'backups',
      notify: false,
    });
  });
});

describe('the notify groups as typed', () => {
  const groupsOf = (typed: string) => alertsUpdateFrom({ notify: true, notifyGroups: typed, webhook: '' });
  it('saves each group once, and blank as every group', () => {
    expect(groupsOf('a, a, a').update.notifications?.groups).toEqual(['a']);
    expect(groupsOf('b, a, b').update.notifications?.groups).toEqual(['b', 'a']);
    expect(groupsOf('  ').update.notifications?.groups).toBeNull();
    expect(groupsOf('  ').messages).toEqual({});
  });
  it('refuses separators with no name rather than saving every group', () => {
    expect(groupsOf(',,,').messages.notifyGroups).toMatch(/^names no group/);
    expect(groupsOf(' , ').messages.notifyGroups).toMatch(/^names no group/);
  });
});
