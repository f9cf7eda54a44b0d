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
  constructor(ms: number, message = `asked to retry after ${ms} ms`) {
    super(message);
    this.name = 'RetryAfterError';
    this.ms = ms;
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
