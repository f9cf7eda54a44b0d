/**
 * Pause, resume, run now and delete for one schedule: delete asks first (saying what stays), each
 * calls the API and reports what it did in the notices. Each returns null when nothing happened.
 */
import { useCallback, useMemo } from 'react';
import type { EnqueueResult, Schedule } from '../../shared/domain.ts';
import { useApi } from './api-context.tsx';
import { useConfirm } from './confirm.tsx';
import { relativeTime } from './format.ts';
import { useNotices } from './notices.tsx';

type Named = Pick<Schedule, 'name'>;

export interface ScheduleActions {
  pause(s: Named): Promise<Schedule | null>;
  resume(s: Named): Promise<Schedule | null>;
  runNow(s: Named): Promise<EnqueueResult | null>;
  remove(s: Named): Promise<boolean>;
}

export function useScheduleActions(): ScheduleActions {
  const api = useApi();
  const ask = useConfirm();
  const { notify } = useNotices();

  const attempt = useCallback(
    async <T>(what: string, run: () => Promise<T>): Promise<T | null> => {
      try {
        return await run();
      } catch (err) {
        notify(`Could not ${what}: ${err instanceof Error ? err.message : String(err)}`, 'red');
        return null;
      }
    },
    [notify],
  );

  const pause = useCallback(
    async ({ name }: Named) => {
      const s = await attempt(`pause schedule ${name}`, () => api.pauseSchedule({ name }));
      if (s) notify(`Schedule ${name} paused: it enqueues nothing until you resume it`, 'grey');
      return s;
    },
    [api, attempt, notify],
  );

  const resume = useCallback(
    async ({ name }: Named) => {
      const s = await attempt(`resume schedule ${name}`, () => api.resumeSchedule({ name }));
      if (s)
        notify(
          `Schedule ${name} resumed${s.nextDueAt !== null ? `: next run ${relativeTime(s.nextDueAt, Date.now())}` : ''}`,
          'green',
        );
      return s;
    },
    [api, attempt, notify],
  );

  const runNow = useCallback(
    async ({ name }: Named) => {
      const r = await attempt(`run schedule ${name}`, () => api.runScheduleNow({ name }));
      if (r) notify(`Task ${r.task.id} “${r.task.name}” queued from schedule ${name}`, 'amber');
      return r;
    },
    [api, attempt, notify],
  );

  const remove = useCallback(
    async ({ name }: Named) => {
      const ok = await ask({
        question: `Delete schedule ${name}?`,
        detail:
          'It stops enqueuing tasks; the tasks it already enqueued stay in the queue. This cannot be undone.',
        confirmLabel: 'Delete schedule',
        danger: true,
      });
      if (!ok) return false;
      const done = await attempt(`delete schedule ${name}`, () => api.removeSchedule({ name }));
      if (done) notify(`Schedule ${name} deleted`, 'grey');
      return done !== null;
    },
    [api, ask, attempt, notify],
  );

  return useMemo(() => ({ pause, resume, runNow, remove }), [pause, resume, runNow, remove]);
}
