import { boundEchoes } from './echo.ts';

/** One problem with one field of some input. `path` is like `tasks[3].priority` or `payload.ms`. */
export interface FieldIssue {
  path: string;
  message: string;
}

/**
 * Input from outside (IPC, HTTP, CLI, payload JSON, the database file) was rejected.
 * The message names the field, e.g. "priority: must be an integer from 0 to 9".
 */
export class ValidationError extends Error {
  readonly issues: FieldIssue[];
  constructor(issues: FieldIssue[]) {
    const bounded = issues.map((i) => ({ path: boundEchoes(i.path), message: boundEchoes(i.message) }));
    super(boundEchoes(bounded.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ')));
    this.name = 'ValidationError';
    this.issues = bounded;
  }
}

/** Something the user named does not exist (a task id, a group). */
export class NotFoundError extends Error {
  constructor(message: string) {
    super(boundEchoes(message));
    this.name = 'NotFoundError';
  }
}

/** An operator action that the task's current status does not allow (e.g. retry a running task). */
export class ConflictError extends Error {
  constructor(message: string) {
    super(boundEchoes(message));
    this.name = 'ConflictError';
  }
}

/** A serialisable description of any thrown value, for IPC, HTTP and the database. */
export interface ErrorInfo {
  name: string;
  message: string;
  issues?: FieldIssue[];
}

export function toErrorInfo(err: unknown): ErrorInfo {
  if (err instanceof ValidationError) {
    return { name: err.name, message: err.message, issues: err.issues };
  }
  if (err instanceof Error) return { name: err.name, message: err.message };
  if (typeof err === 'string') return { name: 'Error', message: err };
  let text: string;
  try {
    text = JSON.stringify(err) ?? String(err);
  } catch {
    text = String(err);
  }
  return { name: 'Error', message: text };
}

/** Formats a path of keys and indexes the way messages show it: `tasks[3].payload.ms`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out;
}
