/**
 * A task's history as a person reads it, for the dashboard's detail panel and `semaforo show`:
 * attempts numbered in the order they ran (a manual retry starts a new budget, so the stored
 * number starts again at 1, but the third run of a task is its third attempt), the wait before
 * each, how it ended (exit code, signal, HTTP status), and an error that repeats the previous
 * attempt's said once. Pure.
 */
import type { HistoryEntry, HistoryOutcome, JsonValue } from './domain.ts';
import { failureCause } from './failure-cause.ts';

export type Tone = 'green' | 'amber' | 'red' | 'grey';

export interface HistoryItem {
  entry: HistoryEntry;
  /** 1 for the task's first attempt ever, counting across manual retries; null for actions */
  ordinal: number | null;
  /** how long the task waited between the previous attempt's end and this one's start */
  waitedMs: number | null;
  /** how it ended, where the error says: `exit 7`, `SIGKILL`, `HTTP 500` */
  code: string | null;
  /** the error is the same as that of the attempt with this ordinal: shown once, there */
  sameErrorAs: number | null;
  tone: Tone;
}

/** Outcomes a person did not get wrong: a cancel, a release on shutdown, an operator action. */
const TONE: Record<HistoryOutcome, Tone> = {
  running: 'amber',
  done: 'green',
  failed: 'red',
  retry: 'amber',
  'retry-after': 'amber',
  timeout: 'red',
  cancelled: 'grey',
  lost: 'amber',
  released: 'grey',
  retried: 'grey',
  priority: 'grey',
};

export const outcomeTone = (o: HistoryOutcome): Tone => TONE[o];

/** The history newest first, each entry with what the person needs beside it. */
export function historyView(history: readonly HistoryEntry[]): HistoryItem[] {
  const oldestFirst = [...history].sort((a, b) => a.startedAt - b.startedAt || a.id - b.id);
  const items: HistoryItem[] = [];
  let ordinal = 0;
  let previous: { endedAt: number | null; error: string | null; ordinal: number } | null = null;
  for (const entry of oldestFirst) {
    if (entry.type !== 'attempt') {
      items.push({
        entry,
        ordinal: null,
        waitedMs: null,
        code: null,
        sameErrorAs: null,
        tone: TONE[entry.outcome],
      });
      continue;
    }
    ordinal++;
    const waitedMs: number | null =
      previous?.endedAt != null ? Math.max(0, entry.startedAt - previous.endedAt) : null;
    const sameErrorAs: number | null =
      entry.error !== null && previous !== null && previous.error === entry.error ? previous.ordinal : null;
    items.push({
      entry,
      ordinal,
      waitedMs,
      code: entry.error === null ? null : failureCause(entry.error).code,
      sameErrorAs,
      tone: TONE[entry.outcome],
    });
    // A repeat points at the first attempt that said it, not at the one before.
    previous = { endedAt: entry.endedAt, error: entry.error, ordinal: sameErrorAs ?? ordinal };
  }
  return items.reverse();
}

/** A POSIX shell word that reads back as exactly `s`. */
const quote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`);

/**
 * The command line a shell task's payload runs, as it could be pasted into a terminal; null when
 * the payload is not a shell task's. With `shell: true` the command is already a command line.
 */
export function shellCommandLine(payload: JsonValue | null): string | null {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return null;
  const { command, args, shell } = payload;
  if (typeof command !== 'string') return null;
  const list = Array.isArray(args) ? args.filter((a): a is string => typeof a === 'string') : [];
  const head = shell === true ? command : quote(command);
  return [head, ...list.map(quote)].join(' ');
}

/**
 * When a running task should end if it keeps its pace so far (ms from `now`); null until it has
 * reported enough (2 %) for the pace to mean something.
 */
export function remainingMs(progress: number | null, startedAt: number | null, now: number): number | null {
  if (progress === null || startedAt === null || progress < 0.02 || progress >= 1) return null;
  const elapsed = Math.max(0, now - startedAt);
  return Math.round((elapsed * (1 - progress)) / progress);
}
