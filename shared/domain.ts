/**
 * Semaforo's domain types, shared by the engine, the CLI, the server and the renderer.
 *
 * Glossary (used with these meanings in code, UI and README):
 * - task: one unit of work in the queue: a kind, a payload and the bookkeeping around it.
 * - kind: which handler runs a task (`sleep`, `shell`, `http`, ...).
 * - group: a named lane with its own concurrency limit, rate limit and pause switch
 *   (e.g. `vendor` for everything that calls one vendor API). Every task belongs to one.
 * - attempt: one run of a task by a handler. A task has at most `maxAttempts` of them.
 * - claim: the atomic step in which a dispatcher takes ready tasks for itself, checking every limit.
 * - lease: the time-bounded right of one worker to run a claimed task; renewed while it runs,
 *   reclaimed by anyone once it expires or its owner process is gone.
 * - worker: one dispatcher in one process (the tray app, `semaforo work`, a `semaforo run`).
 * - drain: run until nothing is pending, waiting or running.
 * - dead letter: the `failed` status: out of attempts or failed permanently; kept until the user acts.
 *
 * Times are milliseconds since the Unix epoch, durations are milliseconds.
 *
 * The types live by area under domain/; this index is the one import point (over 150 importers).
 */
export * from './domain/task.ts';
export * from './domain/stats.ts';
export * from './domain/metrics.ts';
export * from './domain/workers.ts';
export * from './domain/schedule.ts';
