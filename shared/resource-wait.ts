/**
 * The named-resource reason of why-waiting.ts: the first resource a task names that it cannot
 * have now, and who has it. Mirrors the claim's rule (electron/core/policy/resource-ledger.ts):
 * all of a task's resources or none, capacity held back for tasks that waited long.
 */
import type { ResourceInfo, Task } from './domain.ts';
import type { WaitReason } from './why-waiting.ts';

const MAX_NAMED = 3;

/** "task 42", "tasks 42, 43 and 5 more" */
function tasksText(ids: readonly number[]): string {
  const shown = ids.slice(0, MAX_NAMED).join(', ');
  const more = ids.length > MAX_NAMED ? ` and ${ids.length - MAX_NAMED} more` : '';
  return `${ids.length === 1 ? 'task' : 'tasks'} ${shown}${more}`;
}

export function resourceShort(task: Task, resources: readonly ResourceInfo[]): WaitReason | null {
  for (const use of task.uses) {
    const name = use.resource;
    const r = resources.find((x) => x.name === name);
    if (!r)
      return {
        code: 'resource',
        message: `waiting for ${name}: no such resource (semaforo resource set ${name} --capacity N)`,
        short: `no resource ${name}`,
      };
    if (use.weight > r.capacity)
      return {
        code: 'resource',
        message: `waiting for ${name}: needs ${use.weight} but its capacity is ${r.capacity} (semaforo resource set ${name} --capacity ${use.weight})`,
        short: `${name} too small`,
      };
    if (r.held + use.weight > r.capacity)
      return {
        code: 'resource',
        message: `waiting for ${name}: ${r.held} of ${r.capacity} held by ${tasksText(r.holders.map((h) => h.taskId))}`,
        short: `${name} ${r.held}/${r.capacity}`,
      };
    const before = r.reservedFor.filter((id) => id !== task.id);
    if (before.length > 0 && !r.reservedFor.includes(task.id))
      return {
        code: 'resource',
        message: `waiting for ${name}: ${r.held} of ${r.capacity} held, the rest kept for ${tasksText(before)}, which waited longer`,
        short: `${name} kept for ${before[0]}`,
      };
  }
  return null;
}
