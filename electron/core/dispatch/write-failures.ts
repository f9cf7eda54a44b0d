/**
 * How a dispatcher reports that it cannot write to the queue (a full disk, a read-only file, a
 * long lock): the first failure of an episode as an error, saying that it retries and keeps what
 * it could not write; each further failure only in verbose logs, with a reminder now and then or
 * when the cause changes (not more than once in a few seconds); and one line when writing works
 * again. A worker that retries every
 * second for an hour thus logs a few lines, not 3600, and its log still shows that it recovered.
 */
import type { MonotonicClock } from '../clock.ts';
import type { Logger } from '../logger.ts';

/**
 * A new cause is said only this long after the last line: a server restarting answers with four
 * causes in a second (terminating, shutting down, reset, refused), one outage all the same.
 */
const CAUSE_CHANGE_QUIET_MS = 5000;

export class WriteFailures {
  private attempts = 0;
  private since = 0;
  private lastLoggedAt = 0;
  private lastCause = '';
  private readonly logger: Logger;
  private readonly mono: MonotonicClock;
  /** how often a failure that goes on is repeated at error level */
  private readonly remindEveryMs: number;

  constructor(logger: Logger, mono: MonotonicClock, remindEveryMs = 60_000) {
    this.logger = logger;
    this.mono = mono;
    this.remindEveryMs = remindEveryMs;
  }

  /** A write failed with `cause` (one line); `held` finished results wait to be written. */
  failed(cause: string, held: number): void {
    const now = this.mono.now();
    this.attempts++;
    const keeps = held > 0 ? `; ${held} finished result(s) are kept until then` : '';
    if (this.attempts === 1) {
      this.since = now;
      this.logger.error(`${cause}; the dispatcher retries every second${keeps}`);
    } else if (
      (cause !== this.lastCause && now - this.lastLoggedAt >= CAUSE_CHANGE_QUIET_MS) ||
      now - this.lastLoggedAt >= this.remindEveryMs
    ) {
      this.logger.error(
        `${cause}; still retrying (attempt ${this.attempts}, for ${this.seconds(now)} s)${keeps}`,
      );
    } else {
      this.logger.info(`write attempt ${this.attempts} failed: ${cause}`);
      return;
    }
    this.lastLoggedAt = now;
    this.lastCause = cause;
  }

  /** A write went through: ends the episode, if one was going on. */
  succeeded(): void {
    if (this.attempts === 0) return;
    this.logger.warn(
      `the queue can be written again after ${this.attempts} failed attempt(s) over ${this.seconds(this.mono.now())} s; dispatching goes on`,
    );
    this.attempts = 0;
    this.lastCause = '';
  }

  private seconds(now: number): number {
    return Math.round((now - this.since) / 1000);
  }
}
