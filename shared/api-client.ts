/**
 * Builds a QueueApi from one generic `call(name, input)` and a subscription, so each transport
 * (Electron IPC, HTTP+SSE) is only those two functions and adding a request to the contract needs
 * no transport change.
 */
import type { ApiEvent, QueueApi } from './api.ts';
import { REQUEST_NAMES, type RequestName } from './request-names.ts';
import type { ErrorInfo } from './errors.ts';

export type Call = (name: RequestName, input: unknown) => Promise<unknown>;
export type Subscribe = (listener: (event: ApiEvent) => void) => () => void;

export function createQueueApi(call: Call, subscribe: Subscribe): QueueApi {
  const api: Record<string, unknown> = { subscribe };
  for (const name of REQUEST_NAMES) api[name] = (input: unknown) => call(name, input);
  return api as QueueApi;
}

/** A failed request as the renderer sees it, whatever the transport: the engine's ErrorInfo. */
export class ApiError extends Error {
  readonly info: ErrorInfo;
  /** HTTP status where there is one (0 for IPC or a network failure) */
  readonly status: number;
  constructor(info: ErrorInfo, status = 0) {
    super(info.message);
    this.name = info.name;
    this.info = info;
    this.status = status;
  }
  /** The message for one field (`payload.command`), for forms. */
  fieldMessage(path: string): string | undefined {
    return this.info.issues?.find((i) => i.path === path)?.message;
  }
}
