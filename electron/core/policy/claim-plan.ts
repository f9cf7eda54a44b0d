/**
 * The claim's decision, shared by every store: which groups may start how many tasks now, which of
 * the ready candidates are taken, and when to look again if nothing can start. A store runs it
 * inside its claim transaction and does only the reading and writing around it:
 *
 *   const plan = new ClaimPlan({ ...settings, runningTotal, claimMax, now, queueNow });
 *   for each group with waiting tasks:
 *     room = plan.groupRoom(group, running)          // pause, cool-down, concurrency
 *     if room > 0 and the group is rate-limited:     // the store reads its start log
 *       room = plan.rateRoom(group, used, oldest)
 *       (and plan.capRoom over plan.capWindowStart, where that is not null)
 *     if room > 0: plan.offer(group.name, room, candidates read with LIMIT plan.readLimit(room))
 *   plan.holdBack(tasks that waited for resources)   // only with resources (resource-ledger.ts)
 *   plan.choose()                                    // ids to take, in claim order
 *   plan.passedOver                                  // ids skipped for a resource: count them
 *   plan.wakeAt                                      // when to tick again (host clock)
 *
 * Clocks: `now` is the host's, what tasks are stamped with and `run_at` is judged on; `queueNow`
 * is the same instant on the clock shared rate windows and cool-downs are written with (the
 * database's, for a store several hosts share; equal to `now` otherwise). Times read from group
 * rows are on the queue clock; `wakeAt` is given on the host's.
 */
import type { RateLimit, ResourceUse } from '../../../shared/domain.ts';
import { rateRoom } from './rate-limit.ts';
import { ResourceLedger } from './resource-ledger.ts';

/**
 * With resources, a group's best candidates may be waiting for one while the next could start:
 * this many more are read per group, so a blocked head does not stall its whole group.
 */
export const RESOURCE_LOOKAHEAD = 16;

/** A group's limits as the claim reads them. */
export interface ClaimGroup {
  name: string;
  concurrency: number | null;
  /** the rate as applied: evenly spaced or in the bursts asked for (rate-limit.ts spacedRate) */
  rate: RateLimit | null;
  /**
   * the configured window, checked as well where the applied one alone could exceed it (a burst
   * that does not divide the limit: 2 at once of 5/s would let 6 into some second)
   */
  rateCap?: RateLimit | null;
  /** how long the start log is kept for the faces (the configured period), if longer */
  keepStartsMs?: number | null;
  paused: boolean;
  /** a Retry-After cool-down ends then (queue clock) */
  blockedUntil: number | null;
}

/** A ready task offered by its group: the fields the order is decided on. */
export interface ClaimCandidate {
  id: number;
  priority: number;
  run_at: number;
  group_name: string;
  /** the named resources it needs (absent or empty: none) */
  uses?: readonly ResourceUse[];
  /** claims that passed it over for a resource so far */
  resource_waits?: number;
}

export interface ClaimPlanInput {
  globalConcurrency: number;
  paused: boolean;
  /** running tasks of the whole queue */
  runningTotal: number;
  /** at most this many for this worker now (its free slots) */
  claimMax: number;
  now: number;
  queueNow: number;
  /** groups a closed machine gate holds on this worker's machine (gate-policy.ts) */
  closedGroups?: ReadonlySet<string>;
  /** the queue's resources: capacity, and the weight running tasks hold; absent: none defined */
  resources?: { capacity: ReadonlyMap<string, number>; held: ReadonlyMap<string, number> };
}

export class ClaimPlan {
  /** how many tasks this claim may start in all */
  readonly room: number;
  private wake: number | null = null;
  private readonly left = new Map<string, number>();
  private readonly candidates: ClaimCandidate[] = [];
  private readonly reservers: ClaimCandidate[] = [];
  private skipped: number[] = [];

  private readonly input: ClaimPlanInput;

  constructor(input: ClaimPlanInput) {
    this.input = input;
    this.room = input.paused
      ? 0
      : Math.max(0, Math.min(input.claimMax, input.globalConcurrency - input.runningTotal));
  }

  /** When to tick again if nothing is finished or written before then (host clock), or null. */
  get wakeAt(): number | null {
    return this.wake;
  }

  /** Asks for a tick no later than `at` (host clock). */
  wakeNoLaterThan(at: number): void {
    this.wake = this.wake === null ? at : Math.min(this.wake, at);
  }

  /**
   * Whether this claim could choose otherwise once running tasks whose ends are still being
   * written are counted as ended (a claim beside them, PostgreSQL's tick-apart.ts): some room
   * they would widen binds it. With the global room and every waiting group's concurrency room
   * at claimMax or more, each group offers the same candidates either way, so the same are
   * chosen; a resource they hold may fit a better task once free. Rate windows and pauses do not
   * change with ends. `groups`: the groups with waiting tasks, and their running counts.
   */
  endsCouldWiden(groups: readonly { group: ClaimGroup; running: number }[]): boolean {
    const want = this.input.claimMax;
    if (this.input.resources || this.room < want) return true;
    return groups.some(({ group: g, running }) => g.concurrency !== null && g.concurrency - running < want);
  }

  /** Room of a group before its rate limit: 0 when paused, cooling down or full. */
  groupRoom(g: ClaimGroup, running: number): number {
    if (this.room <= 0 || g.paused || this.input.closedGroups?.has(g.name)) return 0;
    if (g.blockedUntil !== null && g.blockedUntil > this.input.queueNow) {
      this.wakeNoLaterThan(this.toHost(g.blockedUntil));
      return 0;
    }
    const room = g.concurrency === null ? this.room : Math.min(this.room, g.concurrency - running);
    return Math.max(0, room);
  }

  /**
   * `room` cut to what the group's rate window allows: `used` starts inside the window ending at
   * `queueNow`, the oldest of them at `oldest` (queue clock). A full window asks for a tick when
   * its oldest start leaves it.
   */
  rateRoom(g: ClaimGroup, room: number, used: number, oldest: number | null): number {
    return this.windowRoom(g.rate, room, used, oldest);
  }

  /** The start of a group's configured window where it is checked too (`rateCap`), or null. */
  capWindowStart(g: ClaimGroup): number | null {
    return g.rateCap ? this.input.queueNow - g.rateCap.periodMs : null;
  }

  /** `room` cut to the configured window (`rateCap`), as rateRoom does to the applied one. */
  capRoom(g: ClaimGroup, room: number, used: number, oldest: number | null): number {
    return this.windowRoom(g.rateCap ?? null, room, used, oldest);
  }

  private windowRoom(rate: RateLimit | null, room: number, used: number, oldest: number | null): number {
    if (rate === null) return room;
    const r = rateRoom(rate, used, oldest, this.input.queueNow);
    if (r.room <= 0) {
      if (r.freeAt !== null) this.wakeNoLaterThan(this.toHost(r.freeAt));
      return 0;
    }
    return Math.min(room, r.room);
  }

  /** The start of a group's rate window, for the store's read of its start log (queue clock). */
  windowStart(g: ClaimGroup): number | null {
    return g.rate === null ? null : this.input.queueNow - g.rate.periodMs;
  }

  /** Starts at or before this are of no use any more, to the claim or the faces (queue clock). */
  pruneBefore(g: ClaimGroup): number | null {
    if (g.rate === null) return null;
    return this.input.queueNow - Math.max(g.rate.periodMs, g.keepStartsMs ?? 0);
  }

  /** A group may start up to `room`; `ready` are its best candidates (at most `room` of them). */
  offer(group: string, room: number, ready: readonly ClaimCandidate[]): void {
    if (room <= 0) return;
    this.left.set(group, room);
    for (const c of ready) this.candidates.push(c);
  }

  /** How many candidates to read for a group with `room`. */
  readLimit(room: number): number {
    return this.input.resources ? room + RESOURCE_LOOKAHEAD : room;
  }

  /**
   * Ready tasks (of any kind, whether or not this worker can run them) that have waited
   * RESERVE_AFTER_PASSES claims for a resource: each holds back its needs from the candidates
   * after it in claim order, if its group could start it now.
   */
  holdBack(tasks: readonly ClaimCandidate[]): void {
    this.reservers.push(...tasks);
  }

  /** The candidates the last `choose` turned away first for a resource that was short. */
  get passedOver(): readonly number[] {
    return this.skipped;
  }

  /** A group with room but only delayed tasks: tick when the first of them is due (host clock). */
  dueAt(at: number | null): void {
    if (at !== null && at > this.input.now) this.wakeNoLaterThan(at);
  }

  /**
   * The candidates to take, best first by (priority, run_at, id) across groups, each group cut
   * to its room and all of them to the claim's.
   */
  choose(): ClaimCandidate[] {
    const offered = new Set(this.candidates.map((c) => c.id));
    // A reserver this worker was not offered still counts, where its group has room now.
    const holding = this.reservers.filter((r) => !offered.has(r.id) && this.left.has(r.group_name));
    const order = [...this.candidates, ...holding].sort(
      (a, b) => a.priority - b.priority || a.run_at - b.run_at || a.id - b.id,
    );
    const res = this.input.resources;
    const ledger = res
      ? new ResourceLedger(res.capacity, res.held)
      : new ResourceLedger(new Map(), new Map());
    const left = new Map(this.left);
    const chosen: ClaimCandidate[] = [];
    /** the resources that turned a task away in this claim */
    const heads = new Set<string>();
    this.skipped = [];
    for (const c of order) {
      if (chosen.length >= this.room) break;
      const uses = c.uses ?? [];
      if (!offered.has(c.id)) {
        ledger.reserve(uses, c.resource_waits ?? 0);
        continue;
      }
      const n = left.get(c.group_name) ?? 0;
      if (n <= 0) continue;
      if (uses.length > 0) {
        const short = ledger.short(uses);
        if (short.length > 0) {
          // Counted as passed over only at the head of a line (resource-ledger.ts). A task
          // that can never fit heads no line: it would keep the one behind it from counting.
          if (ledger.canEverFit(uses)) {
            if (short.some((r) => !heads.has(r))) this.skipped.push(c.id);
            for (const r of short) heads.add(r);
          }
          ledger.reserve(uses, c.resource_waits ?? 0);
          continue;
        }
        ledger.take(uses);
      }
      left.set(c.group_name, n - 1);
      chosen.push(c);
    }
    return chosen;
  }

  private toHost(queueTime: number): number {
    return queueTime - (this.input.queueNow - this.input.now);
  }
}
