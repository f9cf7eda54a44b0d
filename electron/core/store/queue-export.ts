/**
 * A whole queue as one backend hands it to another (`semaforo migrate`): every row of every
 * table that holds state, column for column (both schemas use the same table and column names),
 * read in one snapshot. Not the contract's Task: a copy must keep what the faces never see (the
 * owner and reservation processes, the due time a schedule's task was fired for, which keeps a
 * due time from firing twice) and the ids, so links and history survive the move.
 */

/** A stored value as it crosses: flags are booleans, times and ids numbers. */
export type ExportValue = string | number | boolean | null;
export type ExportRow = Readonly<Record<string, ExportValue>>;

/** The tables copied, in the order a target writes them. */
export const EXPORT_TABLES = [
  'settings',
  'groups',
  'group_starts',
  'group_limits',
  'resources',
  'gates',
  'schedules',
  'tasks',
  'history',
] as const;
export type ExportTable = (typeof EXPORT_TABLES)[number];

export interface QueueExport {
  /** where it was read from, for messages */
  readonly location: string;
  /** rows per table in the snapshot, and tasks per status: what the copy is verified against */
  readonly counts: Readonly<Record<ExportTable, number>>;
  readonly taskStatuses: Readonly<Record<string, number>>;
  /**
   * The highest task id ever handed out (purged tasks included): a target's new tasks start
   * above it, so an id never names two tasks.
   */
  readonly lastTaskId: number;
  /** the rows of `table` in id (or key) order, `batch` at a time */
  rows(table: ExportTable, batch: number): AsyncIterable<ExportRow[]>;
  close(): Promise<void>;
}

export interface CopyReport {
  from: string;
  to: string;
  /** rows written per table, each checked against the source's count */
  copied: Record<ExportTable, number>;
  taskStatuses: Record<string, number>;
  /** whether the target held a queue that the copy replaced */
  replaced: boolean;
}
