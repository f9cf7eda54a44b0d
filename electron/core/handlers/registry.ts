import type { JsonValue, KindInfo, Task } from '../../../shared/domain.ts';
import { ValidationError } from '../../../shared/errors.ts';
import { LazyPayload, readPayload, type PayloadSchema } from './payload.ts';

/** What a handler gets besides its payload. */
export interface HandlerContext {
  /**
   * Aborted on timeout, cancel, lease loss or shutdown; `signal.reason` says which. Made when
   * first read (a getter: `{ ...ctx }` does not copy it; destructuring does).
   */
  readonly signal: AbortSignal;
  /** 1-based attempt number */
  attempt: number;
  /** the lease owner (worker id) running this attempt; shell tasks tag their processes with it */
  readonly worker?: string;
  task: Task;
  /** Appends to the attempt's output excerpt (bounded, the tail is kept). */
  log: (text: string) => void;
  /** Reports progress from 0 to 1; written to the database at most a few times a second. */
  progress: (fraction: number) => void;
  /**
   * Holds this task's group for `ms` from when the task ends: no task of it starts before (a
   * vendor said its quota is used up). The task itself ends as its handler does.
   */
  holdGroup?: (ms: number) => void;
  /**
   * The shell handler tells the process group its command leads (null: it ended), so a machine
   * gate with --pause-running can stop and continue it. Other handlers are never paused.
   */
  processGroup?: (pid: number | null) => void;
}

export interface Handler<P = unknown> {
  kind: string;
  /** one line for `--help` and the UI */
  description: string;
  /** Validates the payload at enqueue, so a bad task is refused before it is written. */
  payload: PayloadSchema<P>;
  /** Time limit used when the task gives none; undefined means none. */
  defaultTimeoutMs?: number;
  run: (payload: P, ctx: HandlerContext) => Promise<JsonValue | void>;
}

/** kind -> handler. Built-in kinds are registered by the engine; user modules add theirs. */
export class HandlerRegistry {
  private readonly handlers = new Map<string, Handler>();
  private readonly sources = new Map<string, KindInfo['source']>();

  register<P>(handler: Handler<P>, source: KindInfo['source'] = 'builtin'): void {
    if (this.handlers.has(handler.kind))
      throw new Error(`a handler for kind "${handler.kind}" is already registered`);
    this.handlers.set(handler.kind, handler as unknown as Handler);
    this.sources.set(handler.kind, source);
  }

  /** Every kind with its description, sorted by name. */
  list(): KindInfo[] {
    return this.kinds().map((kind) => ({
      kind,
      description: this.handlers.get(kind)!.description,
      source: this.sources.get(kind)!,
    }));
  }

  get(kind: string): Handler | undefined {
    return this.handlers.get(kind);
  }

  kinds(): string[] {
    return [...this.handlers.keys()].sort();
  }

  /**
   * Loads every kind's lazily loaded payload schema (payload.ts). A dispatcher that runs any
   * kind awaits it before it starts: else the first task of a kind would be stamped started
   * before its schema had loaded, and reach, say, a rate-limited vendor that much later.
   */
  async loadPayloadSchemas(): Promise<void> {
    await Promise.all(
      [...this.handlers.values()].map((h) => (h.payload instanceof LazyPayload ? h.payload.load() : null)),
    );
  }

  /**
   * Validates a payload for `kind`; errors name the field as `payload.x` (under `prefix`). A
   * promise only while the kind's schema is not loaded yet (payload.ts).
   */
  parsePayload(kind: string, payload: unknown, prefix: string): unknown {
    const handler = this.handlers.get(kind);
    if (!handler) {
      throw new ValidationError([
        {
          path: prefix ? `${prefix}.kind` : 'kind',
          message: `unknown kind "${kind}"; known kinds: ${this.kinds().join(', ')}`,
        },
      ]);
    }
    return readPayload(handler.payload, payload, prefix ? `${prefix}.payload` : 'payload');
  }
}

/**
 * Erases a handler's payload type so handlers of different kinds fit in one list. Sound because
 * the dispatcher always parses the payload with `handler.payload` (readPayload) before calling `run`.
 */
export function defineHandler<P>(handler: Handler<P>): Handler<unknown> {
  return handler as unknown as Handler<unknown>;
}
