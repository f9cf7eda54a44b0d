/**
 * The failure webhook: each task that fails for good becomes an `http` task that POSTs its
 * description to the configured URL. Going through the queue gives it retries with backoff and
 * persistence, so a webhook outage loses nothing.
 */
import type { Task } from '../../../shared/domain.ts';
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
      return {
        kind: 'http',
        name: `failure webhook for task ${t.id}`,
        group: WEBHOOK_GROUP,
        priority: 1,
        maxAttempts: 10,
        // One delivery per failure, even if two faces see it or the app restarts.
        unique: `webhook:${t.id}:${t.finishedAt ?? 0}`,
        payload: {
          method: 'POST',
          url,
          headers: { 'content-type': 'application/json', 'user-agent': 'Semaforo' },
          body: JSON.stringify(body),
          timeoutMs: 15_000,
        },
      };
    });
}
