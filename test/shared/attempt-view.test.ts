import { describe, expect, it } from 'vitest';
import type { HistoryEntry } from '../../shared/domain.ts';
import { historyView, remainingMs, shellCommandLine } from '../../shared/attempt-view.ts';

let nextId = 1;
function attempt(
  n: number,
  startedAt: number,
  endedAt: number | null,
  outcome: HistoryEntry['outcome'],
  error: string | null = null,
): HistoryEntry {
  return {
    id: nextId++,
    taskId: 1,
    type: 'attempt',
    attempt: n,
    startedAt,
    endedAt,
    outcome,
    error,
    output: null,
    worker: 'w',
    pausedMs: null,
  };
}
function action(startedAt: number, outcome: HistoryEntry['outcome']): HistoryEntry {
  return {
    id: nextId++,
    taskId: 1,
    type: 'action',
    attempt: 0,
    startedAt,
    endedAt: startedAt,
    outcome,
    error: null,
    output: null,
    worker: null,
    pausedMs: null,
  };
}

describe('historyView', () => {
  const curl = '"curl -fsS https://x" exited with code 7: curl: (7) Failed to connect';
  const history = [
    attempt(1, 0, 100, 'retry', curl),
    attempt(2, 1100, 1200, 'failed', curl),
    action(5000, 'retried'),
    // A manual retry starts the budget again: the store numbers this attempt 1.
    attempt(1, 5100, 5300, 'failed', '"curl -fsS https://x" exited with code 22: 404'),
    attempt(1, 9000, null, 'running'),
  ];

  it('lists newest first, numbering attempts across a manual retry', () => {
    const v = historyView(history);
    expect(v.map((i) => i.ordinal)).toEqual([4, 3, null, 2, 1]);
    expect(v[0]!.entry.outcome).toBe('running');
  });

  it('says a repeated error once, at the attempt that said it first, and gives its code', () => {
    const v = historyView(history).reverse();
    expect(v[0]).toMatchObject({ code: 'exit 7', sameErrorAs: null });
    expect(v[1]).toMatchObject({ code: 'exit 7', sameErrorAs: 1 });
    expect(v[3]).toMatchObject({ code: 'exit 22', sameErrorAs: null });
  });

  it('gives the wait before each attempt since the previous one ended', () => {
    const v = historyView(history).reverse();
    expect(v.map((i) => i.waitedMs)).toEqual([null, 1000, null, 3900, 3700]);
  });

  it('tones a cancel and a release grey, a failure red', () => {
    const v = historyView([
      attempt(1, 0, 1, 'cancelled', 'cancelled by user'),
      attempt(2, 2, 3, 'timeout', 'timed out'),
    ]);
    expect(v.map((i) => i.tone)).toEqual(['red', 'grey']);
  });
});

describe('shellCommandLine', () => {
  it('quotes the program and each argument as a POSIX shell reads them back', () => {
    expect(shellCommandLine({ command: 'pg_dump', args: ['-f', '/tmp/a b.sql', "it's"] })).toBe(
      "pg_dump -f '/tmp/a b.sql' 'it'\\''s'",
    );
  });
  it('keeps a shell command line as written, and appends its arguments quoted', () => {
    expect(shellCommandLine({ command: 'tar czf - . | gzip', shell: true, args: ['x y'] })).toBe(
      "tar czf - . | gzip 'x y'",
    );
  });
  it('is null for a payload that is not a shell task', () => {
    expect(shellCommandLine({ url: 'https://x' })).toBeNull();
    expect(shellCommandLine('echo')).toBeNull();
    expect(shellCommandLine(null)).toBeNull();
  });
});

describe('remainingMs', () => {
  it('extrapolates the pace so far, once enough is reported', () => {
    expect(remainingMs(0.25, 1000, 11_000)).toBe(30_000);
    expect(remainingMs(0.01, 1000, 11_000)).toBeNull();
    expect(remainingMs(null, 1000, 11_000)).toBeNull();
    expect(remainingMs(1, 1000, 11_000)).toBeNull();
  });
});
