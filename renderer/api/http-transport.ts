/**
 * The QueueApi over HTTP for a browser talking to `semaforo serve`: one POST per request, and
 * server-sent events for changes. The session cookie (token.ts) authenticates both; a token, when
 * this tab has one, goes as a bearer header (and in the event stream's query, as EventSource
 * cannot send headers).
 */
import type { ApiEvent, EventName } from '../../shared/api.ts';
import type { QueueApi } from '../../shared/api.ts';
import { ApiError, createQueueApi } from '../../shared/api-client.ts';
import type { ErrorInfo } from '../../shared/errors.ts';

export interface HttpTransportOptions {
  baseUrl: string;
  /** sent as a bearer header when given; otherwise the session cookie speaks for the page */
  token: string | null;
  /** called with true/false as the event stream connects and drops */
  onConnection?: (connected: boolean) => void;
}

const EVENT_NAMES: EventName[] = ['changed'];

export function createHttpApi({ baseUrl, token, onConnection }: HttpTransportOptions): QueueApi {
  const base = baseUrl.replace(/\/$/, '');
  const call = async (name: string, input: unknown) => {
    let res: Response;
    try {
      res = await fetch(`${base}/api/${name}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: JSON.stringify(input ?? null),
      });
    } catch (err) {
      throw new ApiError({
        name: 'NetworkError',
        message: `cannot reach the Semaforo server (${String(err)})`,
      });
    }
    const body = (await res.json().catch(() => null)) as { value?: unknown; error?: ErrorInfo } | null;
    if (!res.ok || !body || 'error' in body) {
      throw new ApiError(body?.error ?? { name: 'HttpError', message: `HTTP ${res.status}` }, res.status);
    }
    return body.value;
  };

  const listeners = new Set<(e: ApiEvent) => void>();
  let source: EventSource | null = null;
  const subscribe = (listener: (e: ApiEvent) => void) => {
    listeners.add(listener);
    if (!source) {
      source = new EventSource(`${base}/api/events${token ? `?token=${encodeURIComponent(token)}` : ''}`);
      source.onopen = () => onConnection?.(true);
      source.onerror = () => onConnection?.(false); // EventSource reconnects by itself
      for (const type of EVENT_NAMES) {
        source.addEventListener(type, (m) => {
          const data = JSON.parse((m as MessageEvent<string>).data) as ApiEvent['data'];
          for (const l of listeners) l({ type, data } as ApiEvent);
        });
      }
    }
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && source) {
        source.close();
        source = null;
      }
    };
  };
  return createQueueApi(call, subscribe);
}
