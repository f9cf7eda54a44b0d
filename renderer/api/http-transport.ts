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
/** What a failed connection says (the server is down, or the network between). */
export const UNREACHABLE = 'cannot reach the Semaforo server: is semaforo serve still running?';
/** The most requests one batch carries (the server's MAX_BATCH). */
const MAX_BATCH = 20;

interface Queued {
  name: string;
  input: unknown;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

type BatchAnswer = { value: unknown } | { error: ErrorInfo; status: number };

export function createHttpApi({ baseUrl, token, onConnection }: HttpTransportOptions): QueueApi {
  const base = baseUrl.replace(/\/$/, '');
  const post = async (path: string, input: unknown): Promise<unknown> => {
    let res: Response;
    try {
      res = await fetch(`${base}/api/${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: JSON.stringify(input ?? null),
      });
    } catch {
      // The browser's own words ("TypeError: Failed to fetch") tell the user nothing.
      throw new ApiError({ name: 'NetworkError', message: UNREACHABLE });
    }
    const body = (await res.json().catch(() => null)) as { value?: unknown; error?: ErrorInfo } | null;
    if (!res.ok || !body || 'error' in body) {
      throw new ApiError(body?.error ?? { name: 'HttpError', message: `HTTP ${res.status}` }, res.status);
    }
    return body.value;
  };

  // Requests made in the same turn (a screen refreshing its counts, its list and its charts on
  // one change) travel as one POST /api/batch.
  let queued: Queued[] = [];
  const flush = () => {
    const items = queued;
    queued = [];
    if (items.length === 0) return; // flushed early, at MAX_BATCH
    if (items.length === 1) {
      const [one] = items as [Queued];
      post(one.name, one.input).then(one.resolve, one.reject);
      return;
    }
    post(
      'batch',
      items.map((q) => ({ name: q.name, input: q.input ?? null })),
    ).then(
      (answers) => {
        const list = answers as BatchAnswer[];
        items.forEach((q, i) => {
          const a = list[i];
          if (a && 'value' in a) q.resolve(a.value);
          else
            q.reject(new ApiError(a?.error ?? { name: 'HttpError', message: 'no answer' }, a?.status ?? 0));
        });
      },
      (err: unknown) => {
        for (const q of items) q.reject(err);
      },
    );
  };
  const call = (name: string, input: unknown) =>
    new Promise<unknown>((resolve, reject) => {
      queued.push({ name, input, resolve, reject });
      if (queued.length === 1) queueMicrotask(flush);
      else if (queued.length >= MAX_BATCH) flush();
    });

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
