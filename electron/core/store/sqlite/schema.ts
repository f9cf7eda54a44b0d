/**
 * Schema version 1 of the queue file, as one text. Later versions are migrations on top of it
 * (migrations.ts); this text is never edited once a version with it has shipped.
 */

/** 'SEMA': marks a file as a Semaforo queue, and its user_version as counted from this schema. */
export const APPLICATION_ID = 0x53454d41;

export const SCHEMA_V1 = `
  PRAGMA application_id = ${APPLICATION_ID};

  CREATE TABLE settings (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    global_concurrency INTEGER NOT NULL DEFAULT 3 CHECK (global_concurrency >= 1),
    paused INTEGER NOT NULL DEFAULT 0 CHECK (paused IN (0, 1)),
    retention_days INTEGER NOT NULL DEFAULT 30 CHECK (retention_days >= 0),
    notify_enabled INTEGER NOT NULL DEFAULT 1 CHECK (notify_enabled IN (0, 1)),
    -- JSON array of group names, or NULL for every group
    notify_groups TEXT,
    failure_webhook TEXT,
    -- 'results': a result is on disk before anyone hears of it, an enqueue or a claim is not
    -- waited for (it survives a process crash, not a power cut). 'full': every commit is.
    durability TEXT NOT NULL DEFAULT 'results' CHECK (durability IN ('results', 'full'))
  );
  INSERT INTO settings (id) VALUES (1);

  -- The columns, in this order, are those of task-columns.ts.
  CREATE TABLE tasks (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    name TEXT NOT NULL,
    group_name TEXT NOT NULL,
    priority INTEGER NOT NULL CHECK (priority BETWEEN 0 AND 9),
    payload TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending','running','retrying','done','failed','cancelled')),
    attempts INTEGER NOT NULL DEFAULT 0,
    max_attempts INTEGER NOT NULL CHECK (max_attempts >= 1),
    retry_after_count INTEGER NOT NULL DEFAULT 0,
    run_at INTEGER NOT NULL,
    timeout_ms INTEGER,
    unique_key TEXT,
    lease_owner TEXT,
    lease_expires_at INTEGER,
    owner_pid INTEGER,
    owner_host TEXT,
    cancel_requested INTEGER NOT NULL DEFAULT 0,
    progress REAL,
    created_at INTEGER NOT NULL,
    started_at INTEGER,
    finished_at INTEGER,
    error TEXT,
    result TEXT,
    -- A \`semaforo run\` runs its command in its own process, so its task is held for it: no
    -- other worker claims it, and if that process dies while it waits, it is cancelled.
    reserved_for TEXT,
    reserved_pid INTEGER,
    reserved_host TEXT,
    -- the schedule that enqueued it, and for which due time (NULL for a run-now)
    schedule_id INTEGER,
    scheduled_for INTEGER
  );

  -- The claim reads each group's ready tasks in (priority, run_at, id) order, and the earliest
  -- delayed one from the same index. Partial, so finished tasks (the bulk of a long-lived file)
  -- are not in it and its cost does not grow with them.
  CREATE INDEX tasks_claimable ON tasks (group_name, priority, run_at, id)
    WHERE status IN ('pending', 'retrying') AND reserved_for IS NULL;
  CREATE INDEX tasks_claimable_reserved ON tasks (reserved_for, group_name, priority, run_at, id)
    WHERE status IN ('pending', 'retrying') AND reserved_for IS NOT NULL;
  -- Lease renewal, expiry and dead-owner checks touch only running tasks.
  CREATE INDEX tasks_running ON tasks (lease_owner, lease_expires_at) WHERE status = 'running';
  -- Finished tasks (exactly those with a finish time) by status and finish time: lists,
  -- failures, metrics and retention; a pending or running task is not in it.
  CREATE INDEX tasks_ended ON tasks (status, finished_at, id) WHERE finished_at IS NOT NULL;
  -- The list screen filters by status and pages by id.
  CREATE INDEX tasks_status ON tasks (status, id);
  -- A unique key is held only while its task is not finished.
  CREATE UNIQUE INDEX tasks_unique_active ON tasks (unique_key)
    WHERE unique_key IS NOT NULL AND status IN ('pending', 'running', 'retrying');
  -- One task per schedule and due time, whichever process fires it.
  CREATE UNIQUE INDEX tasks_schedule_due ON tasks (schedule_id, scheduled_for)
    WHERE schedule_id IS NOT NULL;

  CREATE TABLE history (
    id INTEGER PRIMARY KEY,
    task_id INTEGER NOT NULL,
    type TEXT NOT NULL CHECK (type IN ('attempt', 'action')),
    attempt INTEGER NOT NULL,
    started_at INTEGER NOT NULL,
    ended_at INTEGER,
    outcome TEXT NOT NULL,
    error TEXT,
    output TEXT,
    worker TEXT
  );
  CREATE INDEX history_task ON history (task_id, id);

  CREATE TABLE groups (
    name TEXT PRIMARY KEY,
    concurrency INTEGER CHECK (concurrency IS NULL OR concurrency >= 1),
    rate_limit INTEGER CHECK (rate_limit IS NULL OR rate_limit >= 1),
    rate_period_ms INTEGER CHECK (rate_period_ms IS NULL OR rate_period_ms >= 1),
    paused INTEGER NOT NULL DEFAULT 0 CHECK (paused IN (0, 1)),
    blocked_until INTEGER
  ) WITHOUT ROWID;

  -- Starts inside the current rate window, for groups that have a rate limit: a sliding window
  -- log, so "5 per second" holds for every window, not just aligned ones.
  CREATE TABLE group_starts (
    group_name TEXT NOT NULL,
    started_at INTEGER NOT NULL
  );
  CREATE INDEX group_starts_window ON group_starts (group_name, started_at);

  -- Task counts per group and status, exact in the same transaction as the change, so the
  -- overview and the claim read them in O(groups), not O(tasks). The insert (insert-tasks.ts)
  -- adds a batch's rows once per group; these triggers follow every later change.
  CREATE TABLE counts (
    group_name TEXT NOT NULL,
    status TEXT NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (group_name, status)
  ) WITHOUT ROWID;
  CREATE TRIGGER tasks_after_delete AFTER DELETE ON tasks BEGIN
    UPDATE counts SET n = n - 1 WHERE group_name = OLD.group_name AND status = OLD.status;
  END;
  CREATE TRIGGER tasks_after_status AFTER UPDATE OF status ON tasks
    WHEN OLD.status IS NOT NEW.status BEGIN
    UPDATE counts SET n = n - 1 WHERE group_name = OLD.group_name AND status = OLD.status;
    INSERT INTO counts (group_name, status, n) VALUES (NEW.group_name, NEW.status, 1)
      ON CONFLICT (group_name, status) DO UPDATE SET n = n + 1;
  END;
  -- The group of a task never changes after enqueue; refuse rather than skew the counters.
  CREATE TRIGGER tasks_group_fixed BEFORE UPDATE OF group_name ON tasks
    WHEN OLD.group_name IS NOT NEW.group_name BEGIN
    SELECT RAISE(ABORT, 'a task cannot change group');
  END;

  CREATE TABLE schedules (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    cron TEXT,
    timezone TEXT,
    every_ms INTEGER CHECK (every_ms IS NULL OR every_ms > 0),
    -- JSON of the task template (kind, name, group, priority, maxAttempts, timeout, payload)
    template TEXT NOT NULL,
    missed TEXT NOT NULL DEFAULT 'skip' CHECK (missed IN ('skip', 'once', 'all')),
    overlap TEXT NOT NULL DEFAULT 'allow' CHECK (overlap IN ('allow', 'skip')),
    enabled INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
    next_due_at INTEGER,
    last_due_at INTEGER,
    last_enqueued_at INTEGER,
    last_task_id INTEGER,
    skipped_overlap INTEGER NOT NULL DEFAULT 0,
    skipped_missed INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    CHECK ((cron IS NULL) <> (every_ms IS NULL))
  );
  CREATE INDEX schedules_due ON schedules (next_due_at) WHERE enabled = 1;

  -- An enqueue appends one row here (inbox.ts); the next write transaction of any process moves
  -- it into tasks. A row holds the tasks id - n + 1 .. id, so ids are handed out here: new rows
  -- take max(id) + n, and once moved the newest row stays behind (n = 0, tasks NULL) to keep
  -- the sequence above every id ever used, also after tasks are purged.
  CREATE TABLE inbox (
    id INTEGER PRIMARY KEY,
    -- at most LIMITS.batch (shared/schemas.ts) tasks, as the engine takes in one call
    n INTEGER NOT NULL CHECK (n BETWEEN 0 AND 100000),
    -- JSON: one array per task (task-columns.ts); NULL once moved
    tasks TEXT,
    created_at INTEGER NOT NULL
  );
`;

/** Version 2: a schedule's dead-man's switch (shared/schedule-alarms.ts), in milliseconds. */
export const SCHEMA_V2 = `
  ALTER TABLE schedules ADD COLUMN grace_ms INTEGER CHECK (grace_ms IS NULL OR grace_ms > 0);
  ALTER TABLE schedules ADD COLUMN max_runtime_ms INTEGER CHECK (max_runtime_ms IS NULL OR max_runtime_ms > 0);
  ALTER TABLE schedules ADD COLUMN min_runtime_ms INTEGER CHECK (min_runtime_ms IS NULL OR min_runtime_ms > 0);
`;

/**
 * Version 3: adaptive groups (../adaptive-row.ts): what a group learned under its caps, and the
 * history of its effective limits (at most ADAPTIVE_HISTORY points a group); a rate's burst
 * (null: starts evenly spaced). Named resources (../resource-row.ts): their capacities, what each
 * task uses, and how many claims passed a waiting task over for one (the anti-starvation rule,
 * policy/resource-ledger.ts). Machine gates.
 */
export const SCHEMA_V3 = `
  ALTER TABLE groups ADD COLUMN adaptive INTEGER NOT NULL DEFAULT 0 CHECK (adaptive IN (0, 1));
  ALTER TABLE groups ADD COLUMN eff_concurrency REAL;
  ALTER TABLE groups ADD COLUMN eff_rate REAL;
  ALTER TABLE groups ADD COLUMN rate_ceiling REAL;
  ALTER TABLE groups ADD COLUMN adapt_decreased_at INTEGER;
  ALTER TABLE groups ADD COLUMN adapt_grown_at INTEGER;
  ALTER TABLE groups ADD COLUMN adapt_logged_at INTEGER;
  ALTER TABLE groups ADD COLUMN last_throttle_at INTEGER;
  ALTER TABLE groups ADD COLUMN last_throttle TEXT;
  ALTER TABLE groups ADD COLUMN rate_burst INTEGER CHECK (rate_burst IS NULL OR rate_burst > 0);
  -- groups set before starts were spaced keep the bursts they had
  UPDATE groups SET rate_burst = rate_limit WHERE rate_limit IS NOT NULL;
  CREATE TABLE group_limits (
    group_name TEXT NOT NULL,
    at INTEGER NOT NULL,
    concurrency INTEGER,
    rate REAL
  );
  CREATE INDEX group_limits_at ON group_limits (group_name, at);

  CREATE TABLE resources (
    name TEXT PRIMARY KEY,
    capacity INTEGER NOT NULL CHECK (capacity >= 1)
  ) WITHOUT ROWID;
  -- JSON pairs [["cpu",2]], NULL: none; held while the task runs (no table of holders to keep)
  ALTER TABLE tasks ADD COLUMN uses TEXT;
  ALTER TABLE tasks ADD COLUMN resource_waits INTEGER NOT NULL DEFAULT 0;
  -- The claim's holders and the stats' holders and waiters: only unfinished tasks naming one.
  CREATE INDEX tasks_using ON tasks (status, priority, run_at, id)
    WHERE uses IS NOT NULL AND status IN ('pending', 'running', 'retrying');
  -- Waiting tasks passed over for a resource; a claim reads those that reserve capacity.
  CREATE INDEX tasks_resource_waits ON tasks (resource_waits)
    WHERE resource_waits > 0 AND status IN ('pending', 'retrying');

  -- Machine gates (../gate-row.ts): scope '' holds the whole queue, else one group.
  CREATE TABLE gates (
    scope TEXT PRIMARY KEY,
    max_load REAL,
    min_free_memory INTEGER,
    on_ac INTEGER NOT NULL DEFAULT 0 CHECK (on_ac IN (0, 1))
  ) WITHOUT ROWID;
`;

/**
 * Version 4: a machine gate's idle condition (ms the user must have been idle; null: not judged)
 * and whether it pauses running shell tasks; the time an attempt spent paused by one.
 */
export const SCHEMA_V4 = `
  ALTER TABLE gates ADD COLUMN when_idle_ms INTEGER CHECK (when_idle_ms IS NULL OR when_idle_ms > 0);
  ALTER TABLE gates ADD COLUMN pause_running INTEGER NOT NULL DEFAULT 0 CHECK (pause_running IN (0, 1));
  ALTER TABLE history ADD COLUMN paused_ms INTEGER;
`;
