/**
 * The desktop app's brain, without Electron: it watches the engine, asks the pure policies what
 * the tray and notifications should show, enqueues failure webhooks, and carries out tray
 * actions. The Electron side (main.ts) is a `DesktopHost` that only renders and reports.
 */
import { closedGates } from '../core/machine/gate-view.ts';
import type { MachineReading } from '../core/machine/readings.ts';
import type { QueueSettings, Stats } from '../../shared/domain.ts';
import { whyWaiting } from '../../shared/why-waiting.ts';
import { parseTaskSpec } from '../../shared/task-spec-quick.ts';
import os from 'node:os';
import { backendOf, describeQueue } from '../../shared/queue-place.ts';
import type { Engine } from '../core/engine.ts';
import type { Logger } from '../core/logger.ts';
import type { ScheduleAlarm } from '../../shared/schedule-alarms.ts';
import type { AlarmUpdate } from '../core/schedule/alarm-watch.ts';
import { NotificationPolicy, alarmNotice, type Notice } from './policy/notification-policy.ts';
import { sameView, trayView, type TrayAction, type TrayView } from './policy/tray-model.ts';
import { alarmWebhookSpecs, webhookSpecs } from './policy/webhook.ts';

export interface DesktopHost {
  showTray(view: TrayView): void;
  notify(notice: Notice): void;
  /** show the window, optionally on one task or on the failures of a group */
  openWindow(target?: { taskId?: number; failuresOfGroup?: string }): void;
  quit(): void;
  /** null where the platform has no login items */
  getLaunchAtLogin(): boolean | null;
  setLaunchAtLogin(on: boolean): void;
}

export interface DesktopControllerOptions {
  engine: Engine;
  host: DesktopHost;
  logger: Logger;
  now?: () => number;
  /** one notification per group per this long */
  notifyWindowMs?: number;
  /** this machine's readings, as the tray's worker judges its gates (with the idle time) */
  readMachine?: () => MachineReading;
}

export interface DesktopController {
  /**
   * Recompute the tray and look for new failures (called on every coalesced change). One refresh
   * runs at a time; one asked for meanwhile runs after it, and both callers hear when it is done.
   */
  refresh(): Promise<void>;
  handle(action: TrayAction): Promise<void>;
  /** the user opened the window: failures so far are seen */
  markFailuresSeen(): Promise<void>;
  readonly view: TrayView | null;
  dispose(): void;
}

export function createDesktopController(o: DesktopControllerOptions): DesktopController {
  const now = o.now ?? Date.now;
  const policy = new NotificationPolicy(o.notifyWindowMs);
  // Failures that ended before the app started were for the user to find in the window, not to
  // pop up now; the cursor starts here.
  let cursor = { at: now(), id: 0 };
  let seenFailuresUntil = now();
  let view: TrayView | null = null;
  let alarms: readonly ScheduleAlarm[] = [];
  let dueTimer: ReturnType<typeof setTimeout> | null = null;

  const show = (notices: Notice[]) => {
    for (const n of notices) o.host.notify(n);
  };

  const scheduleDue = () => {
    if (dueTimer) clearTimeout(dueTimer);
    const at = policy.nextDueAt();
    if (at === null) return;
    dueTimer = setTimeout(
      () => {
        dueTimer = null;
        show(policy.due(now()));
        scheduleDue();
      },
      Math.max(0, at - now()),
    );
    dueTimer.unref?.();
  };

  const checkFailures = async (settings: QueueSettings) => {
    for (;;) {
      const failed = await o.engine.failedSince(cursor, 500);
      if (failed.length === 0) break;
      const last = failed[failed.length - 1]!;
      cursor = { at: last.finishedAt ?? cursor.at, id: last.id };
      show(
        policy.offer(
          failed.map((t) => ({ taskId: t.id, name: t.name, group: t.group, error: t.error })),
          settings.notifications,
          now(),
        ),
      );
      const hooks = webhookSpecs(failed, settings.failureWebhook);
      if (hooks.length) await o.engine.enqueueMany(await Promise.all(hooks.map((h) => parseTaskSpec(h))));
      if (failed.length < 500) break;
    }
    scheduleDue();
  };

  /** Why the task next in line waits, when tasks wait and none can start. */
  const nextWaiting = async (stats: Stats) => {
    if (stats.counts.pending + stats.counts.retrying === 0) return null;
    const first = (
      await o.engine.listTasks({ status: ['pending', 'retrying'], sort: 'priority', order: 'asc', limit: 1 })
    ).tasks[0];
    // The tray's own worker runs here: the gates closed on this machine hold it.
    return first
      ? whyWaiting(first, { stats, now: now(), closedGates: closedGates(stats.gates, o.readMachine?.()) })
      : null;
  };

  const queue = describeQueue(
    { backend: backendOf(o.engine.store.location), location: o.engine.store.location },
    os.homedir(),
  );

  const refreshOnce = async () => {
    try {
      // One stats read per refresh serves both the failure check and the tray.
      const stats = await o.engine.stats(5);
      await checkFailures(stats.settings);
      const groupsWithWork = stats.groups.filter(
        (g) => g.counts.pending + g.counts.retrying + g.counts.running > 0,
      );
      const next = trayView({
        counts: stats.counts,
        paused: stats.settings.paused || (groupsWithWork.length > 0 && groupsWithWork.every((g) => g.paused)),
        recentFailures: stats.recentFailures,
        seenFailuresUntil,
        now: now(),
        launchAtLogin: o.host.getLaunchAtLogin(),
        notificationsEnabled: stats.settings.notifications.enabled,
        nextSchedule: await o.engine.nextSchedule(),
        scheduleAlarms: alarms,
        waiting: await nextWaiting(stats),
        queue,
      });
      if (!sameView(view, next)) {
        view = next;
        o.host.showTray(next);
      }
    } catch (err) {
      o.logger.error(`tray update failed: ${String(err)}`);
    }
  };
  // Alarms come from the scheduler of this process (it dispatches): told once each, shown while they hold.
  const alarmsChanged = async (u: AlarmUpdate) => {
    alarms = u.current;
    try {
      if (u.raised.length) {
        const { settings } = await o.engine.stats(0);
        const n = settings.notifications.enabled ? alarmNotice(u.raised) : null;
        if (n) o.host.notify(n);
        const hooks = alarmWebhookSpecs(u.raised, settings.failureWebhook);
        if (hooks.length) await o.engine.enqueueMany(await Promise.all(hooks.map((h) => parseTaskSpec(h))));
      }
    } catch (err) {
      o.logger.error(`schedule alarm: ${String(err)}`);
    }
    await refresh();
  };
  const offAlarms = o.engine.onScheduleAlarms((u) => void alarmsChanged(u));

  // Refreshes never overlap: two at once would both read the failure cursor and notify twice.
  let current: Promise<void> | null = null;
  let next: Promise<void> | null = null;
  const refresh = (): Promise<void> => {
    if (!current) {
      current = refreshOnce().finally(() => (current = null));
      return current;
    }
    next ??= current.then(() => {
      next = null;
      return refresh();
    });
    return next;
  };

  const off = o.engine.onChange(() => void refresh());
  // Relative ages in the menu ("3m ago") and unseen state age even when nothing changes.
  const ticker = setInterval(() => void refresh(), 30_000);
  ticker.unref?.();

  return {
    refresh,
    get view() {
      return view;
    },
    markFailuresSeen() {
      seenFailuresUntil = now();
      return refresh();
    },
    async handle(action) {
      switch (action.type) {
        case 'open-task':
          o.host.openWindow({ taskId: action.taskId });
          break;
        case 'open':
          o.host.openWindow();
          break;
        case 'pause':
          await o.engine.pause();
          break;
        case 'resume':
          await o.engine.resume();
          break;
        case 'retry-failed':
          await o.engine.retryFailed({});
          break;
        case 'toggle-notifications': {
          const enabled = (await o.engine.stats(0)).settings.notifications.enabled;
          await o.engine.updateSettings({ notifications: { enabled: !enabled } });
          break;
        }
        case 'toggle-login':
          o.host.setLaunchAtLogin(!(o.host.getLaunchAtLogin() ?? false));
          break;
        case 'quit':
          o.host.quit();
          return;
      }
      await refresh();
    },
    dispose() {
      off();
      offAlarms();
      clearInterval(ticker);
      if (dueTimer) clearTimeout(dueTimer);
    },
  };
}
