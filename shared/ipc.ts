/**
 * The Electron IPC wire: one request channel carrying (name, input) and one event channel, both
 * generic over the contract in api.ts. Results cross as plain data: contextBridge would strip an
 * Error's fields, so failures travel as ErrorInfo and the renderer rebuilds an ApiError.
 */
import type { ErrorInfo } from './errors.ts';

export const IPC_REQUEST = 'semaforo:request';
export const IPC_EVENT = 'semaforo:event';

export type IpcResult = { ok: true; value: unknown } | { ok: false; error: ErrorInfo };
