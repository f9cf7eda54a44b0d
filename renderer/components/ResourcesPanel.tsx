import type { GateConfig, ResourceInfo } from '../../shared/domain.ts';
import { formatDuration } from '../../shared/durations.ts';

/** "42, 43 (×2) and 3 more": the tasks holding or waiting for a resource. */
function taskList(list: readonly { taskId: number; weight: number }[], total = list.length): string {
  if (total === 0) return '–';
  const shown = list.slice(0, 5).map((t) => (t.weight === 1 ? `${t.taskId}` : `${t.taskId} (×${t.weight})`));
  return total > shown.length ? `${shown.join(', ')} and ${total - shown.length} more` : shown.join(', ');
}

function conditions(g: GateConfig): string {
  const parts = [
    g.maxLoad !== null ? `load ≤ ${g.maxLoad} per core` : null,
    g.minFreeMemory !== null
      ? `≥ ${Math.round((g.minFreeMemory / 1024 ** 2) * 10) / 10} MiB available`
      : null,
    g.onAc ? 'on AC' : null,
    g.whenIdleMs !== null ? `the user idle ≥ ${formatDuration(g.whenIdleMs)}` : null,
  ];
  const text = parts.filter(Boolean).join(', ') || 'nothing';
  return g.pauseRunning ? `${text}; pauses running shell tasks while closed` : text;
}

/**
 * Named resources (who holds and waits for each) and machine gates, as the queue keeps them.
 * Read only: set them with `semaforo resource set` and `semaforo gate set`. A gate's reading is
 * the worker's machine's, which this page cannot see; a task held by one is not named here.
 */
export function ResourcesPanel({ resources, gates }: { resources: ResourceInfo[]; gates: GateConfig[] }) {
  if (resources.length === 0 && gates.length === 0) return null;
  return (
    <section className="panel" aria-labelledby="resources-title">
      <h2 id="resources-title">Resources and machine gates</h2>
      {resources.length > 0 && (
        <table className="resource-table">
          <thead>
            <tr>
              <th scope="col">Resource</th>
              <th scope="col">Held</th>
              <th scope="col">Holders</th>
              <th scope="col">Waiting</th>
              <th scope="col">Held back for</th>
            </tr>
          </thead>
          <tbody>
            {resources.map((r) => (
              <tr key={r.name}>
                <th scope="row">{r.name}</th>
                <td>
                  {r.held} of {r.capacity}
                </td>
                <td>{taskList(r.holders)}</td>
                <td>{taskList(r.waiters, r.waiting)}</td>
                <td>{r.reservedFor.length > 0 ? r.reservedFor.join(', ') : '–'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {gates.length > 0 && (
        <ul className="gate-list">
          {gates.map((g) => (
            <li key={g.group ?? ''}>
              <strong>{g.group ?? 'Every group'}</strong>: starts only with {conditions(g)} (judged by each
              worker on its machine)
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
