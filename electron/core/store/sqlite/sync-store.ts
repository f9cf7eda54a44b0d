/**
 * The shape of the synchronous SQLite store: the TaskStore contract with each Promise unwrapped.
 * better-sqlite3 answers at once, so the store does its work synchronously and the adapter
 * (async-store.ts) hands the results to the engine as settled Promises.
 */
import type { ScheduleStore } from '../schedule-store.ts';
import type { TaskStore } from '../task-store.ts';

/** `T` with every method that returns a Promise returning its value instead. */
type Synchronous<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => R : T[K];
};

export type SyncScheduleStore = Synchronous<ScheduleStore>;

export type SyncTaskStore = Omit<
  Synchronous<TaskStore>,
  'location' | 'schedules' | 'watch' | 'checkWritable' | 'file'
> & {
  readonly schedules: SyncScheduleStore;
  /** changes whenever another connection commits (PRAGMA data_version) */
  dataVersion(): number;
};
