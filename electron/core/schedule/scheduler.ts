/**
 * Runs schedules in a process that dispatches (the tray app, `semaforo work`, `serve`): checks
 * the stored due times about once a second and fires what is due in one transaction. Several
 * processes may run one each on the same file; the store's transaction makes each due time
 * produce one task.
 */
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import { DAMAGED_REMEDY } from '../store/schedule-row.ts';
import type { FireResult, ScheduleStore } from '../store/schedule-store.ts';
import { AlarmWatch, type AlarmUpdate } from './alarm-watch.ts';
import { planFires } from './plan.ts';

export interface SchedulerOptions {
  store: ScheduleStore;
  clock: Clock;
  logger: Logger;
  /** tasks were enqueued */
  onEnqueued: (taskIds: number[]) => void;
  /** the longest wait between checks; edits from other processes show up within it */
  intervalMs: number;
  /** one line for a failed store call, naming the file and the condition (default `String(err)`) */
  describeError?: (err: unknown) => string;
  /** schedules' alarms changed: some were raised, or some cleared (alarm-watch.ts) */
  onAlarms?: (update: AlarmUpdate) => void;
}

const fire = (store: ScheduleStore, now: number): Promise<FireResult> =>
  store.fireDue(now, (s, active) => planFires(s, now, active));

/** One check: fires everything due at `now`. Exposed for tests with a fake clock. */
export async function fireDueSchedules(store: ScheduleStore, now: number): Promise<number[]> {
  return (await fire(store, now)).taskIds;
}

export class Scheduler {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running = false;
  private lastError = '';
  private readonly alarms = new AlarmWatch();

  private readonly o: SchedulerOptions;

  constructor(options: SchedulerOptions) {
    this.o = options;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule(0);
  }

  /** Check now (a schedule was added or changed in this process). */
  wake(): void {
    if (this.running) this.schedule(0);
  }

  stop(): void {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.check(), ms);
    this.timer.unref();
  }

  private async check(): Promise<void> {
    if (!this.running) return;
    this.timer = null;
    const every = this.o.intervalMs;
    let wait = every;
    try {
      const now = this.o.clock.now();
      // Alarms are judged before firing: a due time missed while no scheduler ran is skipped
      // by the firing (missed: skip), and would never be seen as missed after it.
      if (this.o.onAlarms) {
        const update = this.alarms.look(await this.o.store.list(), now);
        if (update) this.o.onAlarms(update);
      }
      const { taskIds: ids, parked } = await fire(this.o.store, now);
      if (ids.length) this.o.onEnqueued(ids);
      // Said once: the firing pauses it, so it is not due again.
      for (const p of parked)
        this.o.logger.warn(
          `scheduler: paused schedule "${p.name}", which is damaged: ${p.problem} (${DAMAGED_REMEDY})`,
        );
      const next = await this.o.store.nextDue();
      if (next) wait = Math.max(0, Math.min(every, next.dueAt - now));
      this.lastError = '';
    } catch (err) {
      // A busy or read-only file: say it once, keep trying at the normal pace (no tight loop).
      const msg = this.o.describeError?.(err) ?? String(err);
      if (msg !== this.lastError) this.o.logger.warn(`scheduler: ${msg}`);
      this.lastError = msg;
    }
    // Stopped meanwhile, or woken (a timer is set again): nothing more to do here.
    if (this.running && this.timer === null) this.schedule(wait);
  }
}
