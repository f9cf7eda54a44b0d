import { formatCount, plural } from '../state/format.ts';

/**
 * Appears while tasks are selected: what is selected, and the bulk actions on it. When every
 * loaded row is only part of what matches, it offers to select all that match (`total`); the
 * actions then act by filter on the server, not on the rows loaded.
 */
export function BulkBar(props: {
  count: number;
  /** how many match the filters in the whole queue */
  total: number;
  allMatching: boolean;
  /** the selection was all matching until a row was unticked: now only the rows loaded, less it */
  narrowed?: boolean;
  onSelectAllMatching(): void;
  onRetry(): void;
  onCancel(): void;
  onDelete(): void;
  onClear(): void;
}) {
  const { count, total, allMatching, narrowed, onSelectAllMatching, onRetry, onCancel, onDelete, onClear } =
    props;
  if (count === 0 && !allMatching) return null;
  const which = allMatching ? 'all' : 'selected';
  return (
    <div className="bulk-bar" role="toolbar" aria-label="Selected tasks">
      <span className="bulk-count" aria-live="polite">
        {allMatching ? `All ${plural(total, 'matching task')} selected` : `${plural(count, 'task')} selected`}
      </span>
      {!allMatching && narrowed && (
        <span className="muted" data-testid="bulk-narrowed">
          the rows loaded, less those unticked; not all that match
        </span>
      )}
      {!allMatching && total > count && (
        <button type="button" className="link" onClick={onSelectAllMatching}>
          Select all {formatCount(total)} matching
        </button>
      )}
      <button type="button" onClick={onRetry}>
        <span aria-hidden="true">↻</span> Retry {which}
      </button>
      <button type="button" onClick={onCancel}>
        <span aria-hidden="true">⊘</span> Cancel {which}
      </button>
      <button type="button" className="danger" onClick={onDelete}>
        <span aria-hidden="true">⌫</span> Delete {which}
      </button>
      <button type="button" className="link" onClick={onClear}>
        Clear selection
      </button>
    </div>
  );
}
