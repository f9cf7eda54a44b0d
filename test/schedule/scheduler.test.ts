import Database from 'better-sqlite3';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineHandler } from '../../electron/core/handlers/registry.ts';
import { SqliteTaskStore } from '../../electron/core/store/sqlite/sqlite-store.ts';
import { ValidationError } from '../../shared/errors.ts';
import { parseInput, scheduleSpecSchema } from '../../shared/schemas.ts';
import { exited, spawnNode, tempDir, testEngine, waitFor } from '../helpers.ts';

const FIXTURE = path.join(import.meta.dirname, 'fixtures', 'fire-hour.ts');
const T0 = Date.parse('2026-12-01T00:00:00Z');
const sleep0 = { kind: 'sleep', payload: { ms: 0 } };

function fakeClock(t = T0) {
  return {
    t,
    now() {
      return this.t;
    },
  };
}

async function issuesOf(fn: () => unknown): Promise<string[]> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof ValidationError) return err.issues.map((i) => `${i.path}: ${i.message}`);
    throw err;
  }
  throw new Error('expected a ValidationError');
}

describe('schedules in the engine', () => {
  it('refuses bad schedules with the field named and writes nothing', async () => {
    const engine = await testEngine({ clock: fakeClock() });
    const bad: [unknown, string][] = [
      [{ name: 'a', cron: '61 * * * *', task: sleep0 }, 'cron: is not a valid 5-field cron expression'],
      [{ name: 'a', cron: '0 0 * * * *', task: sleep0 }, 'cron: is not a valid 5-field'],
      [
        { name: 'a', cron: '0 0 30 2 *', task: sleep0 },
        'cron: is not a valid 5-field cron expression (minute hour day month weekday): never comes due',
      ],
      [
        { name: 'a', cron: '* * * * *', timezone: 'Mars/Olympus', task: sleep0 },
        'timezone: is not a known IANA',
      ],
      [
        { name: 'a', everyMs: 500, task: sleep0 },
        'everyMs: must be from 1s to 366d (1000 to 31622400000 milliseconds)',
      ],
      [{ name: 'a', cron: '* * * * *', everyMs: 60_000, task: sleep0 }, 'cron: give either cron or everyMs'],
      [
        { name: 'a', everyMs: 60_000, timezone: 'UTC', task: sleep0 },
        'timezone: applies to cron schedules only',
      ],
      [{ name: 'a', everyMs: 60_000, task: { kind: 'shell', payload: {} } }, 'task.payload.command'],
      [{ name: 'a b', everyMs: 60_000, task: sleep0 }, 'name: must be 1-64 letters'],
      [{ name: 'a', everyMs: 60_000, task: { ...sleep0, runAt: 5 } }, 'task: Unrecognized key'],
    ];
    for (const [spec, message] of bad) {
      const issues = await issuesOf(() => engine.createSchedule(parseInput(scheduleSpecSchema, spec)));
      expect(issues.join('\n')).toContain(message);
    }
    expect(await engine.listSchedules()).toEqual([]);
  });

  it('computes due times from the stored schedule, so a restart neither loses nor repeats them', async () => {
    const file = path.join(tempDir(), 'q.db');
    const clock = fakeClock();
    const a = await testEngine({ file, clock });
    await a.createSchedule({ name: 'tick', everyMs: 60_000, missed: 'all', task: sleep0 });
    clock.t += 60_000;
    expect(await a.fireSchedules()).toHaveLength(1);
    await a.close();
    // Closed for 10 minutes and 30 seconds; a new process picks up from the stored due time.
    clock.t += 630_000;
    const b = await testEngine({ file, clock });
    const ids = await b.fireSchedules();
    expect(ids).toHaveLength(10);
    expect(await b.fireSchedules()).toEqual([]);
    const s = await b.getSchedule('tick');
    expect(s.nextDueAt).toBe(T0 + 12 * 60_000);
    expect(s.lastTaskId).toBe(ids[9]);
    expect(s.lastTaskStatus).toBe('pending');
    const runAts = (await b.listTasks({ sort: 'runAt', order: 'asc' })).tasks.map(
      (t) => (t.runAt - T0) / 60_000,
    );
    expect(runAts).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });

  it('does not catch up on runs that fell while paused, and run-now leaves the due times alone', async () => {
    const clock = fakeClock();
    const engine = await testEngine({ clock });
    await engine.createSchedule({
      name: 'p',
      cron: '*/10 * * * *',
      timezone: 'UTC',
      missed: 'all',
      task: sleep0,
    });
    await engine.pauseSchedule('p');
    clock.t += 3600_000;
    const resumed = await engine.resumeSchedule('p');
    expect(resumed.nextDueAt).toBe(T0 + 3600_000 + 600_000);
    expect(resumed.upcoming).toHaveLength(5);
    expect(await engine.fireSchedules()).toEqual([]);
    const r = await engine.runScheduleNow('p');
    expect(r.task).toMatchObject({ name: 'p', kind: 'sleep', scheduleId: resumed.id, status: 'pending' });
    expect((await engine.getSchedule('p')).nextDueAt).toBe(resumed.nextDueAt);
  });

  it('overlap skip: no new run while the previous one still runs, then runs again', async () => {
    const clock = fakeClock();
    let release = () => {};
    const hold = defineHandler({
      kind: 'hold',
      description: 'runs until released',
      payload: z.object({}),
      run: () => new Promise<void>((r) => (release = r)),
    });
    const engine = await testEngine({ clock, handlers: [hold], schedules: false });
    await engine.createSchedule({
      name: 'backup',
      everyMs: 3600_000,
      overlap: 'skip',
      task: { kind: 'hold', payload: {} },
    });
    engine.start();
    clock.t += 3600_000;
    const [first] = await engine.fireSchedules();
    await waitFor(async () => (await engine.getTask(first!)).status === 'running', 'the first backup to run');
    for (let hour = 2; hour <= 4; hour++) {
      clock.t += 3600_000;
      expect(await engine.fireSchedules()).toEqual([]);
    }
    expect(await engine.getSchedule('backup')).toMatchObject({ skippedOverlap: 3, lastTaskId: first });
    release();
    await waitFor(async () => (await engine.getTask(first!)).status === 'done', 'the first backup to end');
    clock.t += 3600_000;
    expect(await engine.fireSchedules()).toHaveLength(1);
    expect((await engine.listTasks({ kind: 'hold' })).total).toBe(2);
    await engine.stop();
  });

  it('a dispatching engine fires due schedules by itself and reports the new tasks', async () => {
    const engine = await testEngine({ scheduleIntervalMs: 50 });
    const seen: number[] = [];
    engine.onChange((e) => seen.push(...e.taskIds));
    engine.start();
    await engine.createSchedule({ name: 'often', everyMs: 1000, task: sleep0 });
    const s = await waitFor(async () => {
      const x = await engine.getSchedule('often');
      return x.lastTaskStatus === 'done' && x;
    }, 'a scheduled run to finish');
    expect(seen).toContain(s.lastTaskId);
    expect(await engine.nextSchedule()).toEqual({
      name: 'often',
      at: (await engine.getSchedule('often')).nextDueAt,
    });
    await engine.stop();
  });

  it('pauses a damaged schedule as it comes due, says so once in the log, and fires the others', async () => {
    const file = path.join(tempDir(), 'queue.db');
    const warnings: string[] = [];
    const logger = { info() {}, warn: (m: string) => warnings.push(m), error() {} };
    const engine = await testEngine({ file, logger, scheduleIntervalMs: 50 });
    for (const name of ['broken', 'fine']) await engine.createSchedule({ name, everyMs: 1000, task: sleep0 });
    const raw = new Database(file);
    raw.prepare("UPDATE schedules SET cron = 'nonsense', every_ms = NULL WHERE name = 'broken'").run();
    raw.close();
    engine.start();
    await waitFor(
      async () => (await engine.getSchedule('fine')).lastTaskStatus === 'done',
      'the sound one runs',
    );
    await waitFor(() => warnings.length > 0, 'the warning');
    await new Promise((r) => setTimeout(r, 300)); // six more checks
    expect(warnings).toEqual([
      'scheduler: paused schedule "broken", which is damaged: the cron expression "nonsense" is not valid: ' +
        'it has 1 field (repair it with semaforo schedule update or in the dashboard, or remove it)',
    ]);
    expect(await engine.getSchedule('broken')).toMatchObject({ enabled: false, lastTaskId: null });
    await expect(engine.resumeSchedule('broken')).rejects.toThrow(
      /^schedule "broken" cannot be resumed: the cron expression "nonsense" is not valid/,
    );
    await engine.stop();
  });

  it('two processes firing one file through a simulated hour produce exactly one task per due time', async () => {
    const file = path.join(tempDir(), 'q.db');
    const setup = await testEngine({ file, clock: fakeClock() });
    await setup.createSchedule({ name: 'ten-s', everyMs: 10_000, missed: 'all', task: sleep0 });
    await setup.createSchedule({
      name: 'minute',
      cron: '* * * * *',
      timezone: 'UTC',
      missed: 'all',
      task: sleep0,
    });
    await setup.createSchedule({
      name: 'five-m',
      cron: '*/5 * * * *',
      timezone: 'Asia/Kolkata',
      task: sleep0,
    });
    await setup.close();
    const end = T0 + 3600_000;
    const children = [1, 2].map((seed) => spawnNode([FIXTURE, file, String(T0), String(end), String(seed)]));
    const outs = children.map((c) => {
      let out = '';
      c.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      return () => out;
    });
    expect(await Promise.all(children.map(exited))).toEqual([0, 0]);
    const perProcess = outs.map((o) => Number(o().trim()));

    const store = new SqliteTaskStore(file);
    const rows = store.db
      .prepare<[], { name: string; scheduled_for: number; n: number }>(
        `SELECT s.name, t.scheduled_for, count(*) AS n FROM tasks t JOIN schedules s ON s.id = t.schedule_id
         GROUP BY s.name, t.scheduled_for ORDER BY s.name, t.scheduled_for`,
      )
      .all();
    store.close();
    const byName = (name: string) => rows.filter((r) => r.name === name);
    expect(rows.every((r) => r.n === 1)).toBe(true);
    // Every due time in the hour (an interval starts one period after it was created).
    expect(byName('ten-s').map((r) => (r.scheduled_for - T0) / 1000)).toEqual(
      Array.from({ length: 360 }, (_, i) => (i + 1) * 10),
    );
    expect(byName('minute').map((r) => (r.scheduled_for - T0) / 60_000)).toEqual(
      Array.from({ length: 60 }, (_, i) => i + 1),
    );
    expect(byName('five-m')).toHaveLength(12);
    expect(perProcess.reduce((a, b) => a + b, 0)).toBe(rows.length);
  }, 60_000);
});
