import { plural } from '../state/format.ts';

/** Appears while tasks are selected: what is selected, and the bulk actions on it. */
export function BulkBar(props: {
  count: number;
  onRetry(): void;
  onCancel(): void;
  onDelete(): void;
  onClear(): void;
}) {
  const { count, onRetry, onCancel, onDelete, onClear } = props;
  if (count === 0) return null;
  return (
    <div className="bulk-bar" role="toolbar" aria-label="Selected tasks">
      <span className="bulk-count">{plural(count, 'task')} selected</span>
      <button type="button" onClick={onRetry}>
        <span aria-hidden="true">↻</span> Retry selected
      </button>
      <button type="button" onClick={onCancel}>
        <span aria-hidden="true">⊘</span> Cancel selected
      </button>
      <button type="button" className="danger" onClick={onDelete}>
        <span aria-hidden="true">⌫</span> Delete selected
      </button>
      <button type="button" className="link" onClick={onClear}>
        Clear selection
      </button>
    </div>
  );
}
