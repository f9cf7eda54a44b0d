/**
 * How this connection learns that another connection or process committed: every commit
 * writes to the database's -wal file, so a file watch (inotify on Linux) on it says "maybe",
 * and PRAGMA data_version (no disk read) says whether it really was someone else's commit.
 *
 * A writer appends its frames to the -wal file, may fsync it, and only then publishes the commit
 * in the shared wal-index (a memory map, which raises no file event). An event can therefore
 * arrive before the commit shows in data_version; an event that changed nothing is confirmed
 * again a few times over the next tens of ms (CONFIRM_MS), then at `pollMs` for a few seconds
 * (SLOW_COMMIT_MS), which covers the fsync of a durable commit on a slow disk. A slow poll stays on underneath in case an event is lost (inotify's queue can
 * overflow).
 *
 * Where a watch cannot be had (a network or FUSE file system, fs.watch failing, no -wal file
 * because the database is not in WAL mode), it polls every `pollMs`, as before, and says so once.
 * The -wal file may not exist yet, or be deleted and made again (the last connection to close
 * removes it): then the folder is watched until it appears.
 */
import fs from 'node:fs';
import path from 'node:path';
import { monotonicMs } from '../../clock.ts';
import { nap } from '../../nap.ts';

export interface ChangeWatchOptions {
  /** the database file, whose -wal file is watched; null (a copy in memory): poll, silently */
  file: string | null;
  /** PRAGMA data_version of this connection; throws once it is closed */
  dataVersion: () => number;
  /** another connection committed (called once per change seen, never for this one's commits) */
  onChange: () => void;
  /** how often to poll when the file cannot be watched */
  pollMs: number;
  /** told once, with one line, when it falls back to polling */
  notice: (message: string) => void;
  /** monotonicMs() when this connection last committed (its own events are not spun on) */
  ownWriteAt?: () => number;
  /** the file system's type (statfs), for tests; default fs.statfsSync */
  fsType?: (dir: string) => number | null;
  /** sleeps the thread briefly, false where it may not block; for tests, default nap.ts */
  nap?: (ms: number) => boolean;
}

/** Delays (ms) of the re-checks after an event that showed no change yet. */
const CONFIRM_MS = [1, 1, 1, 2, 2, 4, 8, 16, 32, 64];
/**
 * Then every `pollMs` until this long (ms) after the event: a durable commit shows only after
 * its fsync, which raises no event of its own, and on a slow disk (an SD card, a throttled VM
 * disk) that takes longer than the quick re-checks.
 */
const SLOW_COMMIT_MS = 3000;
/** An event this soon (ms) after this connection's own commit is taken for that commit's. */
const OWN_WRITE_MS = 3;
/** How long (ms) to keep re-checking after another process's event... */
const SPIN_MS = 1;
/** ...unless a change was seen this recently (ms): commits are streaming in, the next is near. */
const SPIN_QUIET_MS = 5;
/** The nap (ms) between those checks (on a loaded machine ~0.15 ms): a publication takes tens of µs. */
const NAP_MS = 0.05;
/**
 * More than BURST_CHANGES other processes' commits seen within BURST_WINDOW_MS (another process
 * draining) switch to the poll at `pollMs` for BURST_MS, then the watch again. Each commit seen
 * makes SQLite drop this connection's page cache: seen one by one, a drain elsewhere cost a
 * watching process a quarter of a core, against 2% polled. This process's own commits raise
 * events too, but are cheap to check (nothing changed for this connection).
 */
const BURST_CHANGES = 8;
const BURST_WINDOW_MS = 50;
const BURST_MS = 200;
/** The poll under a working watch: only a safety net for a lost event. */
const SAFETY_POLL_MS = 1000;

/** statfs magic numbers of file systems whose changes a local watch may not see. */
const REMOTE_FS: Record<number, string> = {
  0x6969: 'NFS',
  0x517b: 'SMB',
  0xff534d42: 'CIFS',
  0xfe534d42: 'SMB2',
  0x01021997: '9P',
  0x00c36400: 'Ceph',
  0x65735546: 'FUSE',
  0x5346414f: 'AFS',
  0x73757245: 'Coda',
  0x0bd00bd0: 'Lustre',
  0x01161970: 'GFS2',
  0x7461636f: 'OCFS2',
};

function statfsType(dir: string): number | null {
  try {
    return fs.statfsSync(dir).type;
  } catch {
    return null;
  }
}

export type WatchMode = 'watch' | 'poll';

export class ChangeWatch {
  private readonly o: ChangeWatchOptions;
  private readonly wal: string;
  private last = 0;
  private watcher: fs.FSWatcher | null = null;
  /** true while the folder is watched for the -wal file to appear */
  private watchingDir = false;
  private poll: ReturnType<typeof setInterval> | null = null;
  private confirm: ReturnType<typeof setTimeout> | null = null;
  private confirmStep = 0;
  private confirmSince = 0;
  /** keep re-checking (spin) until this monotonicMs() (SPIN_MS) */
  private spinUntil = 0;
  private spinning = false;
  /** monotonicMs() when a spin last ran out without seeing the commit */
  private spinMissedAt = -Infinity;
  private stopped = true;
  private windowAt = -Infinity;
  private windowChanges = 0;
  /** monotonicMs() of the last change seen */
  private changedAt = -Infinity;
  private burst: ReturnType<typeof setInterval> | null = null;
  private burstUntil = 0;
  private noticed = false;
  mode: WatchMode = 'poll';

  private readonly nap: (ms: number) => boolean;

  constructor(options: ChangeWatchOptions) {
    this.o = options;
    this.nap = options.nap ?? nap;
    this.wal = `${options.file ?? ''}-wal`;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.last = this.o.dataVersion();
    if (this.o.file === null) {
      this.setPoll(this.o.pollMs);
      return;
    }
    const remote = this.remoteFs();
    if (remote !== null) {
      this.fallBack(`it is on a ${remote} file system, where file watching may miss other processes' writes`);
      return;
    }
    this.mode = 'watch';
    this.setPoll(Math.max(SAFETY_POLL_MS, this.o.pollMs));
    this.watchWal();
  }

  stop(): void {
    this.stopped = true;
    this.endBurst();
    this.closeWatcher();
    if (this.poll) clearInterval(this.poll);
    this.poll = null;
    if (this.confirm) clearTimeout(this.confirm);
    this.confirm = null;
  }

  private remoteFs(): string | null {
    const type = (this.o.fsType ?? statfsType)(path.dirname(this.wal));
    return type === null ? null : (REMOTE_FS[type] ?? null);
  }

  /** Watches the -wal file, or its folder until it appears. */
  private watchWal(): void {
    this.closeWatcher();
    if (this.stopped || this.mode !== 'watch') return;
    try {
      this.watcher = fs.watch(this.wal, { persistent: false }, (event) => {
        // Deleted or replaced: the watch is on the old file; watch again by name.
        if (event === 'rename') this.watchWal();
        this.changed();
      });
      this.watchingDir = false;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
        this.fallBack(`watching ${this.wal} failed (${(err as Error).message})`);
        return;
      }
      try {
        const name = path.basename(this.wal);
        this.watcher = fs.watch(path.dirname(this.wal), { persistent: false }, (_event, file) => {
          if (file === name || file === null) this.watchWal();
        });
        this.watchingDir = true;
      } catch (dirErr) {
        this.fallBack(`watching the folder of ${this.wal} failed (${(dirErr as Error).message})`);
        return;
      }
    }
    this.watcher.on('error', (err: Error) => this.fallBack(`watching ${this.wal} failed (${err.message})`));
    // A commit may have landed between the last check and the new watch (no event: no spin).
    this.changed(false);
  }

  private closeWatcher(): void {
    this.watcher?.close();
    this.watcher = null;
    this.watchingDir = false;
  }

  /** Counts a change seen; whether they come too fast to take one by one. */
  private busy(): boolean {
    const now = monotonicMs();
    if (now - this.windowAt > BURST_WINDOW_MS) {
      this.windowAt = now;
      this.windowChanges = 0;
    }
    return ++this.windowChanges > BURST_CHANGES;
  }

  private startBurst(): void {
    if (this.burst || this.mode !== 'watch') return;
    this.closeWatcher();
    this.burstUntil = monotonicMs() + BURST_MS;
    this.burst = setInterval(
      () => {
        this.check();
        if (monotonicMs() < this.burstUntil) return;
        this.endBurst();
        this.watchWal();
      },
      Math.min(this.o.pollMs, BURST_MS),
    );
    this.burst.unref();
  }

  private endBurst(): void {
    if (this.burst) clearInterval(this.burst);
    this.burst = null;
    this.windowAt = -Infinity;
  }

  private fallBack(why: string): void {
    this.endBurst();
    this.closeWatcher();
    this.mode = 'poll';
    if (!this.noticed) {
      this.noticed = true;
      this.o.notice(
        `${this.o.file ?? 'the queue'}: ${why}; checking for other processes' changes every ${this.o.pollMs} ms instead`,
      );
    }
    if (!this.stopped) this.setPoll(this.o.pollMs);
  }

  private setPoll(ms: number): void {
    if (this.poll) clearInterval(this.poll);
    this.poll = setInterval(() => this.check(), ms);
    this.poll.unref();
  }

  /** An event: check now, and if nothing shows yet, again over the next few ms. */
  private changed(event = true): void {
    // A re-check armed for a later step (after this process's own commit) starts over.
    if (this.confirm) clearTimeout(this.confirm);
    this.confirm = null;
    if (this.check()) return;
    const now = monotonicMs();
    // Not this process's write: another one is publishing its commit right now (usually within
    // a fraction of a ms), so look again every few tens of µs for a moment (spin). Only out
    // of quiet: while commits keep coming, the next event or re-check is never far.
    const quiet = now - this.changedAt > SPIN_QUIET_MS;
    // A spin that ran out unseen (a long write elsewhere, a slow fsync) blocked the loop for
    // nothing, and each of that write's events would start another: none until a change shows.
    const missed = this.spinMissedAt > this.changedAt;
    if (event && quiet && !missed && now - (this.o.ownWriteAt?.() ?? -Infinity) > OWN_WRITE_MS) {
      this.spinUntil = now + SPIN_MS;
      if (!this.spinning) this.spin();
    }
    this.confirmStep = 0;
    this.confirmSince = now;
    this.armConfirm();
  }

  /**
   * Re-checks until spinUntil, napping between checks: re-checking at every event-loop turn kept
   * this process on the CPU that the writer needed to publish its commit, and on a busy machine
   * the watcher then saw it only at the next timer (test/bench/RESULTS.md, "napping"). Where the
   * thread may not block, at every event-loop turn.
   */
  private spin(): void {
    this.spinning = true;
    setImmediate(() => {
      while (!this.stopped && monotonicMs() < this.spinUntil) {
        const slept = this.nap(NAP_MS);
        if (this.check()) break;
        if (!slept) return this.spin(); // cannot sleep here: look again at the next turn
      }
      if (!this.stopped && this.spinUntil !== 0) this.spinMissedAt = monotonicMs();
      this.spinning = false;
    });
  }

  private armConfirm(): void {
    const slow = monotonicMs() - this.confirmSince < SLOW_COMMIT_MS ? this.o.pollMs : undefined;
    const delay = CONFIRM_MS[this.confirmStep] ?? slow;
    if (delay === undefined || this.stopped) {
      this.confirm = null;
      return;
    }
    this.confirm = setTimeout(() => {
      this.confirmStep++;
      if (this.check()) this.confirm = null;
      else this.armConfirm();
    }, delay);
    this.confirm.unref();
  }

  /** Whether another connection committed since the last check (its listener is called if so). */
  private check(): boolean {
    if (this.stopped) return false;
    let v: number;
    try {
      v = this.o.dataVersion();
    } catch {
      return false; // closed, or the file is failing: the next write says why
    }
    if (v === this.last) return false;
    this.last = v;
    this.spinUntil = 0;
    this.changedAt = monotonicMs();
    if (this.burst === null && this.busy()) this.startBurst();
    if (this.confirm) clearTimeout(this.confirm);
    this.confirm = null;
    this.o.onChange();
    return true;
  }

  /** For tests: whether the folder, not the -wal file, is being watched. */
  get waitingForWal(): boolean {
    return this.watchingDir;
  }
}
