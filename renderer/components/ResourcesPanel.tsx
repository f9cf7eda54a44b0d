import type { GateConfig, GateState, ResourceInfo } from '../../shared/domain.ts';
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
 * Read only: set them with `semaforo resource set` and `semaforo gate set`. A gate is judged by
 * each worker on its machine; "here now" is the machine serving this page (the tray app's, with
 * the idle time; `serve`'s), which is the worker's when it runs one.
 */
export function ResourcesPanel({
  resources,
  gates,
  states,
}: {
  resources: ResourceInfo[];
  gates: GateConfig[];
  /** each gate as the machine serving this page judges it now */
  states: readonly GateState[];
}) {
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
          {gates.map((g) => {
            const here = states.find((s) => s.group === g.group);
            return (
              <li key={g.group ?? ''}>
                <strong>{g.group ?? 'Every group'}</strong>: starts only with {conditions(g)} (judged by each
                worker on its machine){here && <span className="muted"> · here now: {here.state}</span>}
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
