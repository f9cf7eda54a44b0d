import { useState } from 'react';
import type { Task } from '../../shared/domain.ts';
import { LIMITS } from '../../shared/limits.ts';
import { useApi } from '../state/api-context.tsx';
import { useNotices } from '../state/notices.tsx';

const LEVELS = Array.from(
  { length: LIMITS.priority.max - LIMITS.priority.min + 1 },
  (_, i) => LIMITS.priority.min + i,
);

/** Changes a task's priority at once (0 runs first); says so in the notices. */
export function PriorityPicker({ task, onDone }: { task: Task; onDone(): void }) {
  const api = useApi();
  const { notify } = useNotices();
  const [busy, setBusy] = useState(false);
  return (
    <select
      aria-label="Priority (0 runs first)"
      value={task.priority}
      disabled={busy}
      onChange={async (e) => {
        const priority = Number(e.target.value);
        setBusy(true);
        try {
          await api.setPriority({ id: task.id, priority });
          notify(`Task ${task.id} now has priority ${priority}`);
          onDone();
        } catch (err) {
          notify(`Could not change the priority: ${(err as Error).message}`, 'red');
        } finally {
          setBusy(false);
        }
      }}
    >
      {LEVELS.map((p) => (
        <option key={p} value={p}>
          {p}
          {p === LIMITS.priority.min ? ' (first)' : p === LIMITS.priority.default ? ' (default)' : ''}
        </option>
      ))}
    </select>
  );
}
