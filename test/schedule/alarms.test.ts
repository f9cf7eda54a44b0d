/**
 * A schedule's dead-man's switch in a dispatching engine, with a clock the test moves: each alarm
 * is raised once (in the log and to listeners), shown in the schedule's health, and cleared.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Engine } from '../../electron/core/engine.ts';
import { defineHandler } from '../../electron/core/handlers/registry.ts';
import type { Logger } from '../../electron/core/logger.ts';
import type { AlarmUpdate } from '../../electron/core/schedule/alarm-watch.ts';
import { parseInput, scheduleSpecSchema } from '../../shared/schemas.ts';
import { testEngine, waitFor } from '../helpers.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;

function movable() {
  let offset = 0;
  return { now: () => Date.now() + offset, move: (ms: number) => (offset += ms) };
}

let release: () => void = () => {};
const blocking = defineHandler({
  kind: 'blocking',
  description: 'runs until the test releases it',
  payload: z.object({}),
  run: () => new Promise<string>((resolve) => (release = () => resolve('ok'))),
});
const quick = defineHandler({ kind: 'quick', description: '', payload: z.object({}), run: async () => 'ok' });

async function watched(kind: string, alarms: Record<string, number>, everyMs = HOUR) {
  const clock = movable();
  const warnings: string[] = [];
  const logger: Logger = { info() {}, warn: (m) => warnings.push(m), error() {} };
  const engine = await testEngine({ handlers: [blocking, quick], clock, logger, scheduleIntervalMs: 50 });
  const updates: AlarmUpdate[] = [];
  engine.onScheduleAlarms((u) => updates.push(u));
  await engine.createSchedule(
    parseInput(scheduleSpecSchema, { name: 'job', everyMs, task: { kind, payload: {} }, alarms }),
  );
  const raised = () => updates.flatMap((u) => u.raised);
  const health = async () => (await engine.getSchedule('job')).health;
  return { engine, clock, warnings, updates, raised, health };
}

async function fired(engine: Engine) {
  await waitFor(async () => (await engine.getSchedule('job')).lastTaskId !== null, 'the schedule fires');
  return (await engine.getSchedule('job')).lastTaskId!;
}

describe("a schedule's alarms", () => {
  it('missed: a due time passes by more than the grace while no scheduler runs', async () => {
    const w = await watched('quick', { graceMs: 10 * MIN });
    w.clock.move(HOUR + 11 * MIN); // the engine does not dispatch yet: nothing fires
    expect((await w.health()).state).toBe('missed');
    w.engine.start();
    await waitFor(() => w.raised().length === 1, 'the alarm');
    expect(w.raised()[0]).toMatchObject({ schedule: 'job', state: 'missed' });
    expect(w.warnings).toContain(
      'schedule "job" is missed: not enqueued within 10m of its due time: is a worker or the tray app running?',
    );
    // The scheduler then skips the missed run (missed: skip): the alarm clears, once.
    await waitFor(() => w.updates.at(-1)!.current.length === 0, 'the alarm clears');
    expect(w.raised()).toHaveLength(1);
    await w.engine.stop();
  });

  it('late: the run was enqueued but has not started within the grace (a paused queue)', async () => {
    const w = await watched('quick', { graceMs: 10 * MIN });
    await w.engine.pause();
    w.engine.start();
    w.clock.move(HOUR);
    const id = await fired(w.engine);
    w.clock.move(11 * MIN);
    await waitFor(() => w.raised().length === 1, 'the alarm');
    expect(w.raised()[0]).toMatchObject({
      state: 'late',
      message: `task ${id} has not started 10m after its due time`,
    });
    await w.engine.resume();
    await waitFor(async () => (await w.engine.getTask(id)).status === 'done', 'the late run');
    await waitFor(() => w.updates.at(-1)!.current.length === 0, 'the alarm clears');
    await w.engine.stop();
  });

  it('overrun: the run goes on past the maximum', async () => {
    const w = await watched('blocking', { maxRuntimeMs: HOUR });
    w.engine.start();
    w.clock.move(HOUR);
    const id = await fired(w.engine);
    await waitFor(async () => (await w.engine.getTask(id)).status === 'running', 'the run starts');
    w.clock.move(HOUR + MIN);
    await waitFor(() => w.raised().length === 1, 'the alarm');
    expect(w.raised()[0]).toMatchObject({ state: 'overrun', message: `task ${id} has run longer than 1h` });
    expect((await w.health()).state).toBe('overrun');
    release();
    await waitFor(async () => (await w.health()).state === 'ok', 'healthy once it ends');
    await w.engine.stop();
  });

  it('too-fast: a success quicker than the minimum', async () => {
    const w = await watched('quick', { minRuntimeMs: 5 * MIN });
    w.engine.start();
    w.clock.move(HOUR);
    const id = await fired(w.engine);
    await waitFor(() => w.raised().length === 1, 'the alarm');
    expect(w.raised()[0]!.state).toBe('too-fast');
    expect(w.raised()[0]!.message).toMatch(
      new RegExp(`^task ${id} succeeded in \\d+ms, under the 5m expected$`),
    );
    await w.engine.stop();
  });
});
