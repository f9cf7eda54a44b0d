/**
 * The QueueApi over the Electron preload bridge. The preload exposes only `request` and `onEvent`
 * (contextBridge); everything else is the shared client, so this file knows nothing per request.
 */
import type { ApiEvent, QueueApi, RequestName } from '../../shared/api.ts';
import { ApiError, createQueueApi } from '../../shared/api-client.ts';
import type { ErrorInfo } from '../../shared/errors.ts';

export interface SemaforoBridge {
  request(name: string, input: unknown): Promise<unknown>;
  onEvent(listener: (event: ApiEvent) => void): () => void;
}

declare global {
  interface Window {
    /** Present only inside the Electron window (electron/preload). */
    semaforo?: SemaforoBridge;
  }
}

// ipcRenderer.invoke rejects with a plain Error whose message Electron prefixes like this.
const ELECTRON_PREFIX = /^Error invoking remote method '[^']+': (?:\w*Error: )?/;

function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err && typeof err === 'object') {
    const e = err as Partial<ErrorInfo> & { info?: ErrorInfo };
    if (e.info && typeof e.info.message === 'string') return new ApiError(e.info);
    if (typeof e.message === 'string') {
      const info: ErrorInfo = { name: e.name ?? 'Error', message: e.message.replace(ELECTRON_PREFIX, '') };
      if (Array.isArray(e.issues)) info.issues = e.issues;
      return new ApiError(info);
    }
  }
  return new ApiError({ name: 'Error', message: String(err) });
}

export function createIpcApi(bridge: SemaforoBridge): QueueApi {
  const call = (name: RequestName, input: unknown) =>
    bridge.request(name, input ?? null).catch((err: unknown) => {
      throw toApiError(err);
    });
  return createQueueApi(call, (listener) => bridge.onEvent(listener));
}
