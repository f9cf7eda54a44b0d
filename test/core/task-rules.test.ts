import { describe, expect, it } from 'vitest';
import { TASK_STATUSES } from '../../shared/domain.ts';
import { TRANSITIONS, canTransition } from '../../shared/transitions.ts';
import {
  CANCEL_NOW_STATUSES,
  RELEASED_LEASE_END,
  RETRYABLE_STATUSES,
  cancelVerdict,
  isFinished,
  lostLeaseEnd,
  removeRefusal,
  retryVerdict,
} from '../../electron/core/policy/task-rules.ts';

describe('retry rules', () => {
  it('retries exactly the statuses the retryByUser edge leaves from, skips a pending task, refuses the rest', () => {
    const verdicts = Object.fromEntries(TASK_STATUSES.map((s) => [s, retryVerdict(7, s).action]));
    expect(verdicts).toEqual({
      pending: 'skip',
      running: 'refuse',
      retrying: 'retry',
      done: 'refuse',
      failed: 'retry',
      cancelled: 'retry',
    });
    expect([...RETRYABLE_STATUSES].sort()).toEqual(
      TASK_STATUSES.filter((s) => canTransition('retryByUser', s)).sort(),
    );
  });

  it('says which statuses could be retried', () => {
    expect(retryVerdict(7, 'running')).toEqual({
      action: 'refuse',
      reason: 'task 7 is running; only failed, cancelled or retrying tasks can be retried',
    });
  });
});

describe('cancel rules', () => {
  it('cancels a waiting task now, asks the worker of a running one to stop it, leaves a finished one', () => {
    const verdicts = Object.fromEntries(TASK_STATUSES.map((s) => [s, cancelVerdict(s).action]));
    expect(verdicts).toEqual({
      pending: 'cancel',
      retrying: 'cancel',
      running: 'request-stop',
      done: 'none',
      failed: 'none',
      cancelled: 'none',
    });
    expect(CANCEL_NOW_STATUSES).toEqual(['pending', 'retrying']);
  });

  it('refuses to delete only a running task', () => {
    expect(TASK_STATUSES.filter((s) => removeRefusal(1, s) !== null)).toEqual(['running']);
    expect(removeRefusal(3, 'running')).toBe('task 3 is running; cancel it before deleting it');
  });

  it('knows the finished statuses', () => {
    expect(TASK_STATUSES.filter(isFinished)).toEqual(['done', 'failed', 'cancelled']);
  });
});

describe('a lease that ended without a result', () => {
  it('requeues a lost task with attempts left, counting the attempt', () => {
    expect(lostLeaseEnd({ attempts: 1, maxAttempts: 3, cancelRequested: false }, 'w9')).toEqual({
      status: 'pending',
      error: 'lease lost: worker w9 stopped renewing (process ended or hung)',
      outcome: 'lost',
      attemptCounts: true,
    });
  });

  it('fails a lost task that used its last attempt, so a task that kills its worker stops', () => {
    expect(lostLeaseEnd({ attempts: 3, maxAttempts: 3, cancelRequested: false }, 'w9').status).toBe('failed');
  });

  it('honours a cancel asked for while the worker was gone', () => {
    expect(lostLeaseEnd({ attempts: 1, maxAttempts: 3, cancelRequested: true }, 'w9')).toMatchObject({
      status: 'cancelled',
      error: 'cancelled while its worker was gone',
    });
  });

  it("cancels a lost `semaforo run`'s own task, which no other process may run, unless it failed", () => {
    expect(
      lostLeaseEnd({ attempts: 1, maxAttempts: 3, cancelRequested: false, reserved: true }, 'run@h:7:a'),
    ).toEqual({
      status: 'cancelled',
      error: 'the semaforo run process running it (run@h:7:a) ended or hung; no other process may run it',
      outcome: 'lost',
      attemptCounts: true,
    });
    expect(
      lostLeaseEnd({ attempts: 1, maxAttempts: 1, cancelRequested: false, reserved: true }, 'run@h:7:a')
        .status,
    ).toBe('failed');
  });

  it('requeues a released task without counting the attempt', () => {
    expect(RELEASED_LEASE_END).toMatchObject({
      status: 'pending',
      outcome: 'released',
      attemptCounts: false,
    });
  });

  it('only ever ends on an edge that leaves running', () => {
    const ends = [
      lostLeaseEnd({ attempts: 1, maxAttempts: 3, cancelRequested: false }, 'w'),
      lostLeaseEnd({ attempts: 3, maxAttempts: 3, cancelRequested: false }, 'w'),
      lostLeaseEnd({ attempts: 1, maxAttempts: 3, cancelRequested: true }, 'w'),
      lostLeaseEnd({ attempts: 1, maxAttempts: 3, cancelRequested: false, reserved: true }, 'w'),
      RELEASED_LEASE_END,
    ];
    for (const e of ends) {
      const edge = Object.values(TRANSITIONS).find(
        (t) => t.to === e.status && (t.from as readonly string[]).includes('running'),
      );
      expect(edge, e.status).toBeDefined();
    }
  });
});
