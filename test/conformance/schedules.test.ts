/** Schedules: stored and edited as given; each due time enqueues one task, however many fire it. */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { planFires } from '../../electron/core/schedule/plan.ts';
import { NO_ALARMS } from '../../shared/schedule-alarms.ts';
import type { NewSchedule } from '../../electron/core/store/schedule-store.ts';
import { exited, spawnNode } from '../helpers.ts';
import { A, backends, claim, done, finish, freshQueue, type Store } from './harness.ts';
import { task } from './shapes.ts';
import { runScheduler } from './racers.ts';
import { fireAt, MIN, T0 } from './schedule-shapes.ts';

const RACER = path.join(import.meta.dirname, 'fixtures', 'racer.ts');

function schedule(overrides: Partial<NewSchedule> = {}): NewSchedule {
  return {
    name: 'hourly',
    cron: null,
    timezone: null,
    everyMs: 3600_000,
    task: {
      kind: 'sleep',
      name: null,
      group: 'default',
      priority: 4,
      maxAttempts: 2,
      timeout: null,
      payload: { ms: 1 },
    },
    missed: 'skip',
    overlap: 'allow',
    enabled: true,
    nextDueAt: T0 + 3600_000,
    alarms: NO_ALARMS,
    ...overrides,
  };
}

const fire = async (store: Store, now: number) => (await fireAt(store, now)).taskIds;

describe.each(backends)('schedules on $name', (backend) => {
  it("keeps a schedule's alarms and shows its last task's start and end", async () => {
    const { store } = await freshQueue(backend);
    const alarms = { graceMs: 10 * MIN, maxRuntimeMs: 60 * MIN, minRuntimeMs: 5000 };
    const created = await store.schedules.create(schedule({ alarms, nextDueAt: T0 }), T0);
    expect(created).toMatchObject({ alarms, lastTaskStartedAt: null, lastTaskFinishedAt: null });
    const replaced = await store.schedules.replace(
      'hourly',
      schedule({ alarms: NO_ALARMS, nextDueAt: T0 }),
      T0,
    );
    expect(replaced.alarms).toEqual(NO_ALARMS);
    await store.schedules.replace('hourly', schedule({ alarms, nextDueAt: T0 }), T0);
    await fire(store, T0);
    const [c] = await claim(store, A, 1, T0 + 1000);
    expect(await store.schedules.get('hourly')).toMatchObject({
      lastTaskStatus: 'running',
      lastTaskStartedAt: T0 + 1000,
      lastTaskFinishedAt: null,
    });
    await finish(store, A, T0 + 3000, done(c!));
    expect(await store.schedules.get('hourly')).toMatchObject({
      alarms,
      lastTaskStatus: 'done',
      lastTaskStartedAt: T0 + 1000,
      lastTaskFinishedAt: T0 + 3000,
    });
  });

  it('creates, reads, lists, replaces, pauses and removes schedules', async () => {
    const { store } = await freshQueue(backend);
    const s = store.schedules;
    const created = await s.create(schedule({ name: 'b' }), T0);
    expect(created).toMatchObject({
      ...schedule({ name: 'b' }),
      lastDueAt: null,
      lastTaskId: null,
      createdAt: T0,
    });
    await s.create(
      schedule({ name: 'a', everyMs: null, cron: '*/5 * * * *', timezone: 'UTC', nextDueAt: T0 + 5 * MIN }),
      T0,
    );
    await expect(s.create(schedule({ name: 'a' }), T0)).rejects.toMatchObject({ name: 'ConflictError' });
    expect((await s.list()).map((x) => x.name)).toEqual(['a', 'b']);
    expect(await s.get('b')).toEqual(created);
    expect(await s.get('nope')).toBeNull();

    const renamed = await s.replace('b', schedule({ name: 'c', everyMs: MIN, nextDueAt: T0 + MIN }), T0 + 1);
    expect(renamed).toMatchObject({ id: created.id, name: 'c', everyMs: MIN, updatedAt: T0 + 1 });
    await expect(s.replace('c', schedule({ name: 'a' }), T0)).rejects.toMatchObject({
      name: 'ConflictError',
    });
    await expect(s.replace('b', schedule(), T0)).rejects.toMatchObject({ name: 'NotFoundError' });

    expect(await s.setEnabled('c', false, null, T0 + 2)).toMatchObject({ enabled: false, nextDueAt: null });
    expect(await s.nextDue()).toEqual({ name: 'a', dueAt: T0 + 5 * MIN });
    expect(await s.setEnabled('c', true, T0 + MIN, T0 + 3)).toMatchObject({
      enabled: true,
      nextDueAt: T0 + MIN,
    });
    expect(await s.nextDue()).toEqual({ name: 'c', dueAt: T0 + MIN });
    await expect(s.setEnabled('nope', true, null, T0)).rejects.toMatchObject({ name: 'NotFoundError' });

    expect(await s.remove('c')).toBe(true);
    expect(await s.remove('c')).toBe(false);
    expect((await s.list()).map((x) => x.name)).toEqual(['a']);
  });

  it('fires a due schedule once per due time, as its template says, and advances it', async () => {
    const { store } = await freshQueue(backend);
    const created = await store.schedules.create(schedule({ everyMs: MIN, nextDueAt: T0 + MIN }), T0);
    expect(await fire(store, T0 + MIN - 1)).toEqual([]);
    const [id] = await fire(store, T0 + MIN + 500);
    expect(await fire(store, T0 + MIN + 900)).toEqual([]);
    expect(await store.getTask(id!)).toMatchObject({
      kind: 'sleep',
      name: 'hourly',
      group: 'default',
      priority: 4,
      maxAttempts: 2,
      payload: { ms: 1 },
      runAt: T0 + MIN,
      scheduleId: created.id,
      status: 'pending',
    });
    expect(await store.schedules.get('hourly')).toMatchObject({
      nextDueAt: T0 + 2 * MIN,
      lastDueAt: T0 + MIN,
      lastTaskId: id,
      lastTaskStatus: 'pending',
    });
    const [c] = await claim(store, A, 1, T0 + MIN + 1000);
    await finish(store, A, T0 + MIN + 2000, done(c!));
    expect((await store.schedules.get('hourly'))!.lastTaskStatus).toBe('done');
  });

  it('never enqueues a second task for a due time it already fired, even when set back to it', async () => {
    const { store } = await freshQueue(backend);
    await store.schedules.create(schedule({ everyMs: MIN, nextDueAt: T0 + MIN }), T0);
    expect(await fire(store, T0 + MIN)).toHaveLength(1);
    await store.schedules.setEnabled('hourly', true, T0 + MIN, T0 + MIN + 1);
    expect(await fire(store, T0 + MIN + 2)).toEqual([]);
    expect((await store.listTasks({})).total).toBe(1);
    expect((await store.schedules.get('hourly'))!.nextDueAt).toBe(T0 + 2 * MIN);
  });

  it('passes the previous run’s state to the plan and counts what it skipped', async () => {
    const { store } = await freshQueue(backend);
    await store.schedules.create(schedule({ everyMs: MIN, nextDueAt: T0 + MIN, overlap: 'skip' }), T0);
    const [first] = await fire(store, T0 + MIN);
    expect(await fire(store, T0 + 2 * MIN)).toEqual([]);
    expect(await store.schedules.get('hourly')).toMatchObject({ skippedOverlap: 1, lastTaskId: first });
    // Missed while nobody fired (skip policy): the late due times are dropped, the one on time runs.
    await store.cancel([first!], T0 + 2 * MIN);
    const [late] = await fire(store, T0 + 10 * MIN + 30_000);
    expect(await store.getTask(late!)).toMatchObject({ runAt: T0 + 10 * MIN });
    expect(await store.schedules.get('hourly')).toMatchObject({ skippedMissed: 7, nextDueAt: T0 + 11 * MIN });
    const seen: boolean[] = [];
    const now = T0 + 11 * MIN;
    await store.schedules.fireDue(now, (x, active) => (seen.push(active), planFires(x, now, active)));
    expect(seen).toEqual([true]);
  });

  it("lists and acts on one schedule's tasks by the schedule filter, newest first", async () => {
    const { store } = await freshQueue(backend);
    const hourly = await store.schedules.create(schedule(), T0);
    const nightly = await store.schedules.create(schedule({ name: 'nightly' }), T0);
    const first = await store.schedules.runNow('hourly', T0 + 1);
    await store.schedules.runNow('nightly', T0 + 2);
    const second = await store.schedules.runNow('hourly', T0 + 3);
    await store.enqueue([task({ name: 'by hand' })], T0 + 4);
    const page = await store.listTasks({ schedule: hourly.id, sort: 'createdAt', order: 'desc', limit: 5 });
    expect(page.total).toBe(2);
    expect(page.tasks.map((t) => t.id)).toEqual([second.taskId, first.taskId]);
    expect((await store.listTasks({ schedule: nightly.id, status: ['pending'] })).total).toBe(1);
    expect((await store.listTasks({ schedule: nightly.id + hourly.id + 100 })).total).toBe(0);
    // An action by filter touches that schedule's tasks and no other.
    const out = await store.actOnMatching('cancel', { schedule: hourly.id }, T0 + 5, { max: 10 });
    expect(out.ids).toHaveLength(2);
    expect((await store.listTasks({ status: ['pending'] })).total).toBe(2);
  });

  it("never gives a removed schedule's id to a new one, so its tasks stay its own", async () => {
    const { store } = await freshQueue(backend);
    const every = { everyMs: 10 * MIN, nextDueAt: T0 + 5 * MIN };
    const old = await store.schedules.create(schedule({ name: 'old', ...every }), T0);
    await store.schedules.runNow('old', T0 + 1);
    expect(await fire(store, T0 + 6 * MIN)).toHaveLength(1); // (schedule, due time) is unique
    expect(await store.schedules.remove('old')).toBe(true);
    const next = await store.schedules.create(schedule({ name: 'new', ...every }), T0 + 6 * MIN);
    expect(next.id).not.toBe(old.id);
    expect((await store.listTasks({ schedule: next.id })).total).toBe(0);
    expect((await store.listTasks({ schedule: old.id })).total).toBe(2);
    // the same due time fires for it: no clash with the old schedule's task of that time
    expect(await fire(store, T0 + 6 * MIN)).toHaveLength(1);
    expect((await store.listTasks({ schedule: next.id })).total).toBe(1);
  });

  it('runs a schedule now without touching its due times, and fires nothing disabled', async () => {
    const { store } = await freshQueue(backend);
    const s = await store.schedules.create(
      schedule({ task: { ...schedule().task, name: 'report', group: 'g' } }),
      T0,
    );
    const r = await store.schedules.runNow('hourly', T0 + 5);
    expect(r.created).toBe(true);
    expect(await store.getTask(r.taskId)).toMatchObject({
      name: 'report',
      group: 'g',
      runAt: T0 + 5,
      scheduleId: s.id,
    });
    expect(await store.schedules.get('hourly')).toMatchObject({
      nextDueAt: s.nextDueAt,
      lastTaskId: r.taskId,
    });
    await expect(store.schedules.runNow('nope', T0)).rejects.toMatchObject({ name: 'NotFoundError' });
    await store.schedules.setEnabled('hourly', false, null, T0 + 6);
    expect(await fire(store, T0 + 100 * 3600_000)).toEqual([]);
    expect(await store.schedules.nextDue()).toBeNull();
  });

  it('connections firing at the same moments produce exactly one task per due time', async () => {
    const q = await freshQueue(backend);
    const other = await q.connect();
    await createRacingSchedules(q.store);
    const ids: number[] = [];
    for (let t = T0; t <= T0 + 10 * MIN; t += 7_000) {
      const both = await Promise.all([fire(q.store, t), fire(other, t)]);
      ids.push(...both.flat());
    }
    ids.push(...(await Promise.all([fire(q.store, T0 + 10 * MIN), fire(other, T0 + 10 * MIN)])).flat());
    await expectOnePerDue(q.store, ids, 10 * MIN);
  });

  it('connections catching up on the same missed due times at once enqueue each one once', async () => {
    const q = await freshQueue(backend);
    const others = await Promise.all([q.connect(), q.connect(), q.connect()]);
    const all = [q.store, ...others];
    await createRacingSchedules(q.store);
    // Ten minutes missed: 60 + 10 due times, all fired in one long transaction by whoever wins.
    const now = T0 + 10 * MIN;
    const ids = (await Promise.all(all.map((s) => fire(s, now)))).flat();
    ids.push(...(await Promise.all(all.map((s) => fire(s, now)))).flat());
    await expectOnePerDue(q.store, ids, 10 * MIN);
    expect((await q.store.schedules.get('ten-s'))!.nextDueAt).toBe(now + 10_000);
  });

  it('connections creating the same schedule at once make one and refuse the other', async () => {
    const q = await freshQueue(backend);
    const other = await q.connect();
    const outcomes = await Promise.allSettled([
      q.store.schedules.create(schedule(), T0),
      other.schedules.create(schedule({ everyMs: MIN }), T0),
    ]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const refused = outcomes.find((o) => o.status === 'rejected');
    expect((refused as PromiseRejectedResult).reason).toMatchObject({ name: 'ConflictError' });
    expect(await q.store.schedules.list()).toHaveLength(1);
  });

  it('processes firing through a simulated hour produce exactly one task per due time', async () => {
    const q = await freshQueue(backend);
    await createRacingSchedules(q.store);
    const end = T0 + 60 * MIN;
    const children = [1, 2, 3].map((seed) =>
      spawnNode([RACER, 'fire', backend.name, q.location, String(T0), String(end), String(seed)]),
    );
    const outs = children.map((c) => {
      let out = '';
      c.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      return () => out;
    });
    // This process fires too, on its own walk through the same hour.
    const mine = await runScheduler(q.store, T0, end, 4);
    expect(await Promise.all(children.map(exited))).toEqual([0, 0, 0]);
    const ids = [...mine, ...outs.flatMap((o) => JSON.parse(o()) as number[])];
    await expectOnePerDue(q.store, ids, 60 * MIN);
  }, 60_000);
});

/** An interval and a cron schedule that catch up on every missed due time (checked by expectOnePerDue). */
async function createRacingSchedules(store: Store) {
  await store.schedules.create(
    schedule({ name: 'ten-s', everyMs: 10_000, missed: 'all', nextDueAt: T0 + 10_000 }),
    T0,
  );
  await store.schedules.create(
    schedule({
      name: 'minute',
      everyMs: null,
      cron: '* * * * *',
      timezone: 'UTC',
      missed: 'all',
      nextDueAt: T0 + MIN,
    }),
    T0,
  );
}

/** Every due time of both schedules within `span` of T0 has exactly one task, and nothing else was enqueued. */
async function expectOnePerDue(store: Store, ids: number[], span: number) {
  const all = (await store.listTasks({ limit: 1000, sort: 'runAt', order: 'asc' })).tasks;
  expect(new Set(ids)).toEqual(new Set(all.map((t) => t.id)));
  expect(ids).toHaveLength(all.length);
  const list = await store.schedules.list();
  const dues = (name: string) => {
    const id = list.find((s) => s.name === name)!.id;
    return all.filter((t) => t.scheduleId === id).map((t) => (t.runAt - T0) / 1000);
  };
  expect(dues('ten-s')).toEqual(Array.from({ length: span / 10_000 }, (_, i) => (i + 1) * 10));
  expect(dues('minute')).toEqual(Array.from({ length: span / MIN }, (_, i) => (i + 1) * 60));
}
