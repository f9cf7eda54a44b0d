/**
 * Adaptive groups on SQLite: the reads and writes around the policy (../adaptive-row.ts), run
 * inside the tick's write transaction so that what a group learns is written with the outcomes
 * it learned from, and every process on the file claims by the same learned limit.
 */
import type { Database, Statement } from 'better-sqlite3';
import { ADAPTIVE_HISTORY } from '../../../../shared/domain.ts';
import {
  LEARNED_COLUMNS,
  learnFromTick,
  withoutGuessedWait,
  type LearnedWrite,
  type LearningRow,
} from '../adaptive-row.ts';
import type { Finish } from '../task-store.ts';
import { prepareOnUse } from './lazy-statement.ts';

type WriteParams = Omit<LearnedWrite, 'point'> & { name: string };

export class AdaptiveLearning {
  private readonly rows: Statement<[], LearningRow>;
  private readonly groupsOf: Statement<[string], { id: number; group_name: string }>;
  private readonly write: Statement<WriteParams>;
  private readonly addPoint: Statement<[string, number, number | null, number | null]>;
  private readonly trim: Statement<[string, string]>;

  constructor(db: Database) {
    this.rows = prepareOnUse(
      db,
      `SELECT name, concurrency, rate_limit, rate_period_ms, ${LEARNED_COLUMNS.join(', ')}, adaptive
       FROM groups WHERE adaptive = 1`,
    );
    this.groupsOf = prepareOnUse(
      db,
      'SELECT id, group_name FROM tasks WHERE id IN (SELECT value FROM json_each(?))',
    );
    this.write = prepareOnUse(
      db,
      `UPDATE groups SET ${LEARNED_COLUMNS.map((c) => `${c} = @${c}`).join(', ')} WHERE name = @name`,
    );
    this.addPoint = prepareOnUse(
      db,
      'INSERT INTO group_limits (group_name, at, concurrency, rate) VALUES (?, ?, ?, ?)',
    );
    this.trim = prepareOnUse(
      db,
      `DELETE FROM group_limits WHERE group_name = ? AND at < (
         SELECT at FROM group_limits WHERE group_name = ? ORDER BY at DESC LIMIT 1 OFFSET ${ADAPTIVE_HISTORY - 1})`,
    );
  }

  /** The adaptive groups by name; empty (one indexless read of a small table) on most queues. */
  groups(): Map<string, LearningRow> {
    return new Map(this.rows.all().map((r) => [r.name, r]));
  }

  /** Each task's group, for the tasks named. */
  private groupOf(taskIds: readonly number[]): Map<number, string> {
    return new Map(this.groupsOf.all(JSON.stringify(taskIds)).map((r) => [r.id, r.group_name]));
  }

  /**
   * `finishes` with a guessed wait taken off where their task's group is adaptive (before they
   * are written).
   */
  withoutGuessedWaits(finishes: readonly Finish[], adaptive: ReadonlyMap<string, LearningRow>) {
    const guessed = finishes.filter((f) => f.status !== 'done' && f.waitGuessed === true);
    if (guessed.length === 0 || adaptive.size === 0) return finishes;
    const groups = this.groupOf(guessed.map((f) => f.taskId));
    return finishes.map((f) => (adaptive.has(groups.get(f.taskId) ?? '') ? withoutGuessedWait(f) : f));
  }

  /** Learns from the finishes the tick wrote, and writes what was learned. */
  learn(applied: readonly Finish[], adaptive: ReadonlyMap<string, LearningRow>, now: number): void {
    if (applied.length === 0 || adaptive.size === 0) return;
    const groups = this.groupOf(applied.map((f) => f.taskId));
    for (const { name, write } of learnFromTick(adaptive, groups, applied, now)) {
      const { point, ...columns } = write;
      this.write.run({ ...columns, name });
      if (point === null) continue;
      this.addPoint.run(name, point.at, point.concurrency, point.rate);
      this.trim.run(name, name);
    }
  }
}
