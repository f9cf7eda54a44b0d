/** Thrown by a handler: the task failed and retrying cannot help (bad input, 404, missing program). */
export class PermanentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PermanentError';
  }
}

/** Thrown by a handler: try again no sooner than `ms` from now (HTTP 429/503 Retry-After). */
export class RetryAfterError extends Error {
  readonly ms: number;
  /** the vendor named no wait: `ms` is Semaforo's default (an adaptive group waits none) */
  readonly guessed: boolean;
  constructor(ms: number, message = `asked to retry after ${ms} ms`, options: { guessed?: boolean } = {}) {
    super(message);
    this.name = 'RetryAfterError';
    this.ms = ms;
    this.guessed = options.guessed ?? false;
  }
}

/** The reason given to a handler's AbortSignal when its task's time limit passed. */
export class TaskTimeoutError extends Error {
  constructor(ms: number) {
    super(`timed out after ${ms} ms`);
    this.name = 'TaskTimeoutError';
  }
}

/** The reason given to a handler's AbortSignal when the user cancelled its task. */
export class TaskCancelledError extends Error {
  constructor(why = 'cancelled by the user') {
    super(why);
    this.name = 'TaskCancelledError';
  }
}

export type StorageCondition = 'full' | 'read-only' | 'io' | 'cannot-open' | 'moved' | 'damaged';

/** A storage failure, described for people; `code` is the backend's (or the system's) code. */
export class StorageError extends Error {
  readonly code: string;
  readonly condition: StorageCondition;
  /** the queue's location as shown to the user (a file path, or a server without its password) */
  readonly file: string;
  constructor(message: string, code: string, condition: StorageCondition, file: string) {
    super(message);
    this.name = 'StorageError';
    this.code = code;
    this.condition = condition;
    this.file = file;
  }
}

/** The queue was written by a newer Semaforo: it is left untouched. */
export class SchemaTooNewError extends Error {
  constructor(found: number, known: number) {
    super(
      `this database has schema version ${found}, written by a newer Semaforo; this version knows up to ${known}. ` +
        `Upgrade Semaforo to open it (it is left untouched).`,
    );
    this.name = 'SchemaTooNewError';
  }
}
