import type { Database } from 'better-sqlite3';
import { SchemaTooNewError } from '../../errors.ts';

/**
 * Numbered schema migrations. The schema version lives in `PRAGMA user_version`; each migration
 * runs in its own transaction together with the version bump, so a crash leaves either the old or
 * the new schema. Never edit a shipped migration: add the next one.
 */
export interface Migration {
  version: number;
  description: string;
  up: (db: Database) => void;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'tasks, history, groups, counters, settings',
    up: (db) => {
      db.exec(`
        CREATE TABLE settings (
          id INTEGER PRIMARY KEY CHECK (id = 1),
          global_concurrency INTEGER NOT NULL DEFAULT 3 CHECK (global_concurrency >= 1),
          paused INTEGER NOT NULL DEFAULT 0 CHECK (paused IN (0, 1)),
          retention_days INTEGER NOT NULL DEFAULT 30 CHECK (retention_days >= 0)
        );
        INSERT INTO settings (id) VALUES (1);

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
          result TEXT
        );

        -- The claim: per group, ready tasks in priority, run_at, age order. Partial, so finished
        -- tasks (the bulk of a long-lived file) are not in it and its cost does not grow with them.
        CREATE INDEX tasks_ready ON tasks (group_name, priority, run_at, id)
          WHERE status IN ('pending', 'retrying');
        -- When is the next delayed task due (the dispatcher sleeps until then).
        CREATE INDEX tasks_due ON tasks (run_at) WHERE status IN ('pending', 'retrying');
        -- Lease renewal, expiry and dead-owner checks touch only running tasks.
        CREATE INDEX tasks_running ON tasks (lease_owner, lease_expires_at) WHERE status = 'running';
        -- Retention, metrics and "recent failures" read finished tasks by finish time.
        CREATE INDEX tasks_finished ON tasks (finished_at) WHERE finished_at IS NOT NULL;
        -- The list screen filters by status and pages by id.
        CREATE INDEX tasks_status ON tasks (status, id);
        -- A unique key is held only while its task is not finished.
        CREATE UNIQUE INDEX tasks_unique_active ON tasks (unique_key)
          WHERE unique_key IS NOT NULL AND status IN ('pending', 'running', 'retrying');

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

        -- Starts inside the current rate window, for groups that have a rate limit: a sliding
        -- window log, so "5 per second" holds for every window, not just aligned ones.
        CREATE TABLE group_starts (
          group_name TEXT NOT NULL,
          started_at INTEGER NOT NULL
        );
        CREATE INDEX group_starts_window ON group_starts (group_name, started_at);

        -- Task counts per group and status, kept exact by triggers in the same transaction as the
        -- change, so the overview and the claim read them in O(groups), not O(tasks).
        CREATE TABLE counts (
          group_name TEXT NOT NULL,
          status TEXT NOT NULL,
          n INTEGER NOT NULL,
          PRIMARY KEY (group_name, status)
        ) WITHOUT ROWID;

        CREATE TRIGGER tasks_after_insert AFTER INSERT ON tasks BEGIN
          INSERT OR IGNORE INTO groups (name) VALUES (NEW.group_name);
          INSERT INTO counts (group_name, status, n) VALUES (NEW.group_name, NEW.status, 1)
            ON CONFLICT (group_name, status) DO UPDATE SET n = n + 1;
        END;
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
      `);
    },
  },
  {
    version: 2,
    description: 'tasks reserved for the `semaforo run` process that enqueued them',
    up: (db) => {
      db.exec(`
        -- A \`semaforo run\` runs its command in its own process (with the caller's terminal), so
        -- its task is held for it: other workers must not claim it, and if that process dies
        -- while the task waits, the task is cancelled rather than left pending forever.
        ALTER TABLE tasks ADD COLUMN reserved_for TEXT;
        ALTER TABLE tasks ADD COLUMN reserved_pid INTEGER;
        ALTER TABLE tasks ADD COLUMN reserved_host TEXT;
        DROP INDEX tasks_ready;
        CREATE INDEX tasks_ready ON tasks (group_name, priority, run_at, id)
          WHERE status IN ('pending', 'retrying') AND reserved_for IS NULL;
        CREATE INDEX tasks_reserved ON tasks (reserved_for, group_name, priority, run_at, id)
          WHERE status IN ('pending', 'retrying') AND reserved_for IS NOT NULL;
      `);
    },
  },
  {
    version: 3,
    description: 'failure notifications: on/off, which groups, webhook URL',
    up: (db) => {
      db.exec(`
        ALTER TABLE settings ADD COLUMN notify_enabled INTEGER NOT NULL DEFAULT 1 CHECK (notify_enabled IN (0, 1));
        -- JSON array of group names, or NULL for every group
        ALTER TABLE settings ADD COLUMN notify_groups TEXT;
        ALTER TABLE settings ADD COLUMN failure_webhook TEXT;
      `);
    },
  },
  {
    version: 4,
    description: 'recurring schedules, and the schedule and due time of each task they enqueue',
    up: (db) => {
      db.exec(`
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
        ALTER TABLE tasks ADD COLUMN schedule_id INTEGER;
        ALTER TABLE tasks ADD COLUMN scheduled_for INTEGER;
        -- One task per schedule and due time, whichever process fires it (run-now rows have NULL).
        CREATE UNIQUE INDEX tasks_schedule_due ON tasks (schedule_id, scheduled_for)
          WHERE schedule_id IS NOT NULL;
      `);
    },
  },
  {
    version: 5,
    description: 'index for the dashboard listing finished tasks by finish time',
    up: (db) => {
      db.exec(`
        -- "Done, newest first" and "failed in the last hour" read this instead of sorting every
        -- finished row (25 ms at 100,000 tasks without it).
        CREATE INDEX tasks_status_finished ON tasks (status, finished_at, id);
      `);
    },
  },
  {
    version: 6,
    description: 'enqueue keeps the counters itself; durability setting; leaner indexes',
    up: (db) => {
      db.exec(`
        -- Two trigger statements per inserted row cost as much as the row itself; the store's
        -- insert (insert-tasks.ts) now creates the group and adds to its counter once per batch,
        -- and marks its rows counted. An older Semaforo still running on this file while it is
        -- upgraded inserts unmarked rows: the trigger keeps counting those, so its enqueues and
        -- schedules do not skew the counters (its dispatcher stops on the dropped indexes below,
        -- with an error, until it is restarted with this version).
        ALTER TABLE tasks ADD COLUMN counted INTEGER;
        DROP TRIGGER tasks_after_insert;
        CREATE TRIGGER tasks_after_legacy_insert AFTER INSERT ON tasks WHEN NEW.counted IS NULL BEGIN
          INSERT OR IGNORE INTO groups (name) VALUES (NEW.group_name);
          INSERT INTO counts (group_name, status, n) VALUES (NEW.group_name, NEW.status, 1)
            ON CONFLICT (group_name, status) DO UPDATE SET n = n + 1;
        END;
        -- 'results': a result is fsynced before anyone hears of it, an enqueue or a claim is not
        -- waited for (it survives a process crash, not a power cut). 'full': every commit is.
        ALTER TABLE settings ADD COLUMN durability TEXT NOT NULL DEFAULT 'results'
          CHECK (durability IN ('results', 'full'));

        -- Fewer index writes per task (each is a page in the WAL of a small commit). Finished
        -- tasks (done, failed, cancelled: exactly those with a finish time) are read by status
        -- and finish time (lists, failures, metrics, retention): one partial index serves them
        -- all, and a pending or running task is in none of it. The next due time is read per
        -- group and priority from tasks_ready (claim.ts) instead of an index of its own.
        DROP INDEX tasks_due;
        DROP INDEX tasks_finished;
        DROP INDEX tasks_status_finished;
        CREATE INDEX tasks_ended ON tasks (status, finished_at, id) WHERE finished_at IS NOT NULL;
      `);
    },
  },
  {
    version: 7,
    description: 'an inbox that takes an enqueue as one appended row',
    up: (db) => {
      db.exec(`
        -- An enqueue appends one row here (one statement, one page in the WAL, however many
        -- tasks it holds) instead of writing each task into tasks, two of its indexes and the
        -- counters; the next write transaction of any process moves it into tasks (inbox.ts).
        -- A row holds the tasks id - n + 1 .. id, so ids are handed out here: new rows take
        -- max(id) + n, and once moved the newest row stays behind (n = 0, tasks NULL) to keep
        -- that sequence above every id ever used, also after tasks are purged.
        CREATE TABLE inbox (
          id INTEGER PRIMARY KEY,
          -- at most LIMITS.batch (shared/schemas.ts) tasks, as the engine takes in one call
          n INTEGER NOT NULL CHECK (n BETWEEN 0 AND 100000),
          -- JSON: one array per task (inbox.ts encodes and checks it); NULL once moved
          tasks TEXT,
          created_at INTEGER NOT NULL
        );
        -- Above every id handed out so far, also of tasks since purged that history, a schedule
        -- or a log may still name.
        INSERT INTO inbox (id, n, tasks, created_at)
          SELECT max(coalesce((SELECT max(id) FROM tasks), 0),
                     coalesce((SELECT max(task_id) FROM history), 0),
                     coalesce((SELECT max(last_task_id) FROM schedules), 0)), 0, NULL, 0;

        -- Writers of an older version insert into tasks with ids of their own, which the inbox
        -- would hand out again: refuse them with a message rather than let ids collide. A
        -- version-6 writer names the renamed column and fails when its statement is prepared
        -- again; older ones leave it NULL and meet the trigger.
        DROP TRIGGER tasks_after_legacy_insert;
        ALTER TABLE tasks RENAME COLUMN counted TO inserted_by;
        CREATE TRIGGER tasks_insert_guard BEFORE INSERT ON tasks WHEN NEW.inserted_by IS NULL BEGIN
          SELECT RAISE(ABORT, 'this queue file was upgraded by a newer Semaforo: restart this process with the new version (nothing was written)');
        END;
        -- An older dispatcher would go on claiming from tasks and never see what waits in the
        -- inbox: its claims name these indexes, so under new names they fail (with an error in its
        -- log) until it is restarted with this version.
        DROP INDEX tasks_ready;
        DROP INDEX tasks_reserved;
        CREATE INDEX tasks_claimable ON tasks (group_name, priority, run_at, id)
          WHERE status IN ('pending', 'retrying') AND reserved_for IS NULL;
        CREATE INDEX tasks_claimable_reserved ON tasks (reserved_for, group_name, priority, run_at, id)
          WHERE status IN ('pending', 'retrying') AND reserved_for IS NOT NULL;
      `);
    },
  },
];

export const LATEST_SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

export function migrate(db: Database): { from: number; to: number } {
  const from = db.pragma('user_version', { simple: true }) as number;
  if (from > LATEST_SCHEMA_VERSION) throw new SchemaTooNewError(from, LATEST_SCHEMA_VERSION);
  for (const m of MIGRATIONS) {
    if (m.version <= from) continue;
    db.transaction(() => {
      // Re-check inside the write lock: another process may have migrated meanwhile.
      const now = db.pragma('user_version', { simple: true }) as number;
      if (now >= m.version) return;
      m.up(db);
      db.pragma(`user_version = ${m.version}`);
    }).immediate();
  }
  return { from, to: Math.max(from, LATEST_SCHEMA_VERSION) };
}
