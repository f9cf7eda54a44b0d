/**
 * The engine's schedule operations. Specs arrive parsed by the face; the task template's payload
 * is checked here by its kind's own schema, and every due time is counted from now (plan.ts).
 */
import type { EnqueueResult, JsonValue, Schedule } from '../../../shared/domain.ts';
import { NotFoundError } from '../../../shared/errors.ts';
import { LIMITS } from '../../../shared/limits.ts';
import type { ParsedScheduleSpec, recurrenceSchema } from '../../../shared/schemas.ts';
import type { z } from 'zod';
import { nextDue } from '../../../shared/schedule-times.ts';
import { NO_ALARMS } from '../../../shared/schedule-alarms.ts';
import { scheduleHealth } from '../policy/schedule-health.ts';
import { dueTimes, firstDue, recurrenceOf } from '../schedule/plan.ts';
import { fireDueSchedules } from '../schedule/scheduler.ts';
import { damagedError } from '../store/schedule-row.ts';
import type { NewSchedule, StoredSchedule } from '../store/schedule-store.ts';
import type { EngineCore } from './core.ts';

/** How many due times a schedule shows ahead. */
const UPCOMING = 5;

export type RecurrenceQuery = z.output<typeof recurrenceSchema>;

export interface ScheduleOperations {
  listSchedules(): Promise<Schedule[]>;
  /** Rejects with a NotFoundError when there is no such schedule (as do the ones below). */
  getSchedule(name: string): Promise<Schedule>;
  createSchedule(spec: ParsedScheduleSpec): Promise<Schedule>;
  /** Replaces the whole schedule; `spec.name` may rename it. */
  updateSchedule(name: string, spec: ParsedScheduleSpec): Promise<Schedule>;
  pauseSchedule(name: string): Promise<Schedule>;
  resumeSchedule(name: string): Promise<Schedule>;
  removeSchedule(name: string): Promise<void>;
  /** Enqueues one run of the schedule's task now, whatever its due times. */
  runScheduleNow(name: string): Promise<EnqueueResult>;
  /** The next due times of a recurrence (cron+timezone or everyMs) from now. */
  previewSchedule(recurrence: RecurrenceQuery): { times: number[]; timezone: string | null };
  /** Fires the schedules due now (the scheduler does this by itself while dispatching). */
  fireSchedules(): Promise<number[]>;
  /** The enabled schedule due soonest, for the tray. */
  nextSchedule(): Promise<{ name: string; at: number } | null>;
}

export function createScheduleOperations(core: EngineCore): ScheduleOperations {
  const { store, clock, registry } = core;
  const schedules = store.schedules;

  const withUpcoming = (s: StoredSchedule): Schedule => {
    const now = clock.now();
    // A damaged schedule comes due never (firing parks it): it lists, with its problem.
    if (s.problem !== undefined) {
      const never = { ...s, nextDueAt: null };
      return { ...never, upcoming: [], health: scheduleHealth(never, now) };
    }
    try {
      // An interval keeps its grid through the stored due time, kept while paused too; a paused
      // schedule shows what it would do if resumed now, and has no due time of its own.
      const recurrence = recurrenceOf(s, s.nextDueAt ?? now + (s.everyMs ?? 0));
      const first = s.enabled ? s.nextDueAt : nextDue(recurrence, now);
      return {
        ...s,
        nextDueAt: s.enabled ? s.nextDueAt : null,
        upcoming: dueTimes(recurrence, first, UPCOMING),
        health: scheduleHealth(s, now),
      };
    } catch (err) {
      // What the store's checks missed still costs one schedule, not the whole list.
      return withUpcoming({ ...s, problem: `its due times cannot be worked out: ${(err as Error).message}` });
    }
  };

  /** The spec as stored: defaults filled in, the payload checked by its kind, the first due time. */
  const toNewSchedule = async (s: ParsedScheduleSpec, prefix = ''): Promise<NewSchedule> => {
    const t = s.task;
    const payload = await registry.parsePayload(t.kind, t.payload, prefix ? `${prefix}.task` : 'task');
    const enabled = s.enabled ?? true;
    const recurrence = { cron: s.cron ?? null, timezone: s.timezone ?? null, everyMs: s.everyMs ?? null };
    return {
      name: s.name,
      ...recurrence,
      task: {
        kind: t.kind,
        name: t.name ?? null,
        group: t.group ?? 'default',
        priority: t.priority ?? LIMITS.priority.default,
        maxAttempts: t.maxAttempts ?? LIMITS.maxAttempts.default,
        timeout: t.timeout ?? null,
        payload: (payload ?? {}) as JsonValue,
        ...(t.uses && t.uses.length > 0 && { uses: t.uses }),
      },
      missed: s.missed ?? 'skip',
      overlap: s.overlap ?? 'allow',
      alarms: s.alarms ?? NO_ALARMS,
      enabled,
      nextDueAt: enabled ? firstDue(recurrence, clock.now()).first : null,
    };
  };

  const changed = (s: StoredSchedule): Schedule => {
    core.schedulesChanged();
    return withUpcoming(s);
  };
  const missing = (name: string) => new NotFoundError(`schedule "${name}" does not exist`);

  const ops: ScheduleOperations = {
    listSchedules: async () => (await schedules.list()).map(withUpcoming),
    async getSchedule(name) {
      const s = await schedules.get(name);
      if (!s) throw missing(name);
      return withUpcoming(s);
    },
    createSchedule: async (spec) => changed(await schedules.create(await toNewSchedule(spec), clock.now())),
    async updateSchedule(name, spec) {
      const next = await toNewSchedule(spec, 'schedule');
      const old = await schedules.get(name);
      // Its times stay where the recurrence and the on/off state do: an interval on its grid, a
      // due time not yet fired (missed runs go as --missed says), a paused one's anchor for resume.
      const same =
        old !== null &&
        old.problem === undefined &&
        old.cron === next.cron &&
        old.timezone === next.timezone &&
        old.everyMs === next.everyMs &&
        old.enabled === next.enabled;
      const kept = same ? { ...next, nextDueAt: old.nextDueAt } : next;
      return changed(await schedules.replace(name, kept, clock.now()));
    },
    async pauseSchedule(name) {
      // The stored next due time stays, unseen (paused, none is due), as the interval's grid.
      const kept = (await schedules.get(name))?.nextDueAt ?? null;
      return changed(await schedules.setEnabled(name, false, kept, clock.now()));
    },
    async resumeSchedule(name) {
      const old = await schedules.get(name);
      if (!old) throw missing(name);
      // Firing would only pause it again, silently: say why now.
      if (old.problem !== undefined) throw damagedError(old, 'be resumed');
      const now = clock.now();
      // Resuming starts from now: runs that fell in the pause are not missed runs. An interval
      // stays on its grid (the due time kept at pause): the next point of it after now.
      const anchor = old.enabled ? null : old.nextDueAt;
      const next = anchor !== null ? nextDue(recurrenceOf(old, anchor), now) : firstDue(old, now).first;
      return changed(await schedules.setEnabled(name, true, next, now));
    },
    async removeSchedule(name) {
      if (!(await schedules.remove(name))) throw missing(name);
      core.schedulesChanged();
    },
    async runScheduleNow(name) {
      const { taskId, created } = await schedules.runNow(name, clock.now());
      core.tasksChanged([taskId]);
      return { task: (await store.getTask(taskId))!, created };
    },
    previewSchedule(r) {
      const rec = { cron: r.cron ?? null, timezone: r.timezone ?? null, everyMs: r.everyMs ?? null };
      const due = firstDue(rec, clock.now());
      const times = dueTimes(due.recurrence, due.first, r.count ?? UPCOMING);
      return { times, timezone: r.cron !== undefined ? (r.timezone ?? null) : null };
    },
    async fireSchedules() {
      const out = await fireDueSchedules(schedules, clock.now());
      core.tasksChanged(out);
      return out;
    },
    async nextSchedule() {
      const n = await schedules.nextDue();
      return n ? { name: n.name, at: n.dueAt } : null;
    },
  };
  return ops;
}
