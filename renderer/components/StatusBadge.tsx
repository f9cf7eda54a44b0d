import type { TaskStatus } from '../../shared/domain.ts';
import { STATUS_META } from '../state/status.ts';

/** A status as symbol + word in its colour (never colour alone). */
export function StatusBadge({ status, compact = false }: { status: TaskStatus; compact?: boolean }) {
  const meta = STATUS_META[status];
  return (
    <span className={`status tone-${meta.tone}${compact ? ' compact' : ''}`} data-status={status}>
      <span className="status-symbol" aria-hidden="true">
        {meta.symbol}
      </span>
      <span className="status-word">{meta.word}</span>
    </span>
  );
}
