/**
 * The failure webhook: each task that fails for good, and each schedule alarm raised, becomes an
 * `http` task that POSTs its description to the configured URL. Going through the queue gives it
 * retries with backoff and persistence, so a webhook outage loses nothing.
 */
import type { Task } from '../../../shared/domain.ts';
import type { ScheduleAlarm } from '../../../shared/schedule-alarms.ts';
import type { TaskSpec } from '../../../shared/schemas.ts';

/** Webhook deliveries run in their own group; their own failures never trigger another webhook. */
export const WEBHOOK_GROUP = 'semaforo.webhook';

export interface WebhookBody {
  event: 'task.failed';
  task: Pick<
    Task,
    'id' | 'kind' | 'name' | 'group' | 'attempts' | 'maxAttempts' | 'error' | 'createdAt' | 'finishedAt'
  >;
}

export interface AlarmWebhookBody {
  event: 'schedule.alarm';
  alarm: ScheduleAlarm;
}

export function alarmWebhookSpecs(raised: readonly ScheduleAlarm[], url: string | null): TaskSpec[] {
  if (!url) return [];
  return raised.map((alarm) => {
    const body: AlarmWebhookBody = { event: 'schedule.alarm', alarm };
    return delivery(
      url,
      body,
      `alarm webhook for schedule ${alarm.schedule}`,
      `alarm:${alarm.schedule}:${alarm.state}:${alarm.since}`,
    );
  });
}

/** One POST through the queue, unique so that two faces or a restart deliver it once. */
function delivery(url: string, body: object, name: string, unique: string): TaskSpec {
  return {
    kind: 'http',
    name,
    group: WEBHOOK_GROUP,
    priority: 1,
    maxAttempts: 10,
    unique,
    payload: {
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json', 'user-agent': 'Semaforo' },
      body: JSON.stringify(body),
      timeoutMs: 15_000,
    },
  };
}

export function webhookSpecs(failed: readonly Task[], url: string | null): TaskSpec[] {
  if (!url) return [];
  return failed
    .filter((t) => t.group !== WEBHOOK_GROUP)
    .map((t) => {
      const body: WebhookBody = {
        event: 'task.failed',
        task: {
          id: t.id,
          kind: t.kind,
          name: t.name,
          group: t.group,
          attempts: t.attempts,
          maxAttempts: t.maxAttempts,
          error: t.error,
          createdAt: t.createdAt,
          finishedAt: t.finishedAt,
        },
      };
      // One delivery per failure, even if two faces see it or the app restarts.
      return delivery(url, body, `failure webhook for task ${t.id}`, `webhook:${t.id}:${t.finishedAt ?? 0}`);
    });
}
