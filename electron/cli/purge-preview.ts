/**
 * What `purge` is about to delete, counted before it does, and the question it asks on a
 * terminal. A purge cannot be undone: `--older-than 30` once meant 30 ms and emptied a history.
 */
import readline from 'node:readline';
import type { Engine } from '../core/engine.ts';
import type { CliIo } from './io.ts';
import { formatElapsed } from '../../shared/durations.ts';

const FINISHED = ['done', 'failed', 'cancelled'] as const;
type Finished = (typeof FINISHED)[number];

export interface PurgePreview {
  /** tasks that ended before this time (epoch ms) go */
  before: number;
  count: number;
  byStatus: Record<Finished, number>;
}

/** Counts the finished tasks that ended before `before`, oldest first, a page at a time. */
export async function previewPurge(engine: Engine, before: number): Promise<PurgePreview> {
  const byStatus: Record<Finished, number> = { done: 0, failed: 0, cancelled: 0 };
  let count = 0;
  for (let offset = 0; ; offset += 1000) {
    const page = await engine.listTasks({
      status: [...FINISHED],
      sort: 'finishedAt',
      order: 'asc',
      limit: 1000,
      offset,
    });
    for (const t of page.tasks) {
      if (t.finishedAt === null || t.finishedAt >= before) return { before, count, byStatus };
      byStatus[t.status as Finished]++;
      count++;
    }
    if (page.tasks.length < 1000) return { before, count, byStatus };
  }
}

/** `12 finished task(s) (done 10, failed 2) that ended before 2026-11-04T03:00:00.000Z (30d ago)` */
export function describePurge(p: PurgePreview, ageMs: number): string {
  const parts = FINISHED.filter((s) => p.byStatus[s] > 0).map((s) => `${s} ${p.byStatus[s]}`);
  return (
    `${p.count} finished task(s)${parts.length ? ` (${parts.join(', ')})` : ''} ` +
    `that ended before ${new Date(p.before).toISOString()} (${formatElapsed(ageMs)} ago)`
  );
}

/** Both ends are a terminal: a person can answer. */
export function canAsk(io: CliIo): boolean {
  return io.interactive && (io.stdin as { isTTY?: boolean }).isTTY === true;
}

/** Asks a yes/no question on stderr; anything but y or yes is no. */
export async function confirm(io: CliIo, question: string): Promise<boolean> {
  const rl = readline.createInterface({ input: io.stdin, terminal: false });
  io.err(`${question} [y/N] `);
  try {
    const answer = await new Promise<string>((resolve) => {
      rl.once('line', resolve);
      rl.once('close', () => resolve(''));
    });
    return /^(y|yes)$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}
