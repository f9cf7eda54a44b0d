/** Human output of `resource list` and the resources part of `stats`. */
import type { ResourceInfo } from '../../shared/domain.ts';
import { table } from './format.ts';

/** "42, 43 (cpu:2) and 3 more": who holds or waits, with weights above 1. */
function taskList(list: readonly { taskId: number; weight: number }[], total = list.length, max = 5): string {
  if (total === 0) return '-';
  const shown = list
    .slice(0, max)
    .map((t) => (t.weight === 1 ? `${t.taskId}` : `${t.taskId} (×${t.weight})`));
  return total > shown.length ? `${shown.join(', ')} and ${total - shown.length} more` : shown.join(', ');
}

export function resourceTable(resources: readonly ResourceInfo[]): string {
  if (resources.length === 0) return 'No resources yet (semaforo resource set NAME --capacity N).';
  return table(
    ['RESOURCE', 'HELD', 'HOLDERS', 'WAITING', 'WAITERS', 'HELD BACK FOR'],
    resources.map((r) => [
      r.name,
      `${r.held} of ${r.capacity}`,
      taskList(r.holders),
      String(r.waiting),
      taskList(r.waiters, r.waiting),
      r.reservedFor.length > 0 ? r.reservedFor.join(', ') : '-',
    ]),
  );
}
