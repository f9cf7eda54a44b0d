import { LazyPayload } from './payload.ts';
import type { SleepPayload } from './payload-schemas.ts';
import type { Handler } from './registry.ts';

/** Waits `ms` milliseconds (0: returns at once). Used by tests, benchmarks and as a spacer. */
export const sleepHandler: Handler<SleepPayload> = {
  kind: 'sleep',
  description: 'wait {ms} milliseconds; ms 0 is a no-op',
  payload: new LazyPayload(async () => (await import('./payload-schemas.ts')).sleepPayload),
  run: ({ ms }, ctx) => {
    // A no-op does not ask for the signal, so none is made for it (see lazy-abort.ts).
    if (ms === 0) return Promise.resolve();
    const { signal } = ctx;
    return new Promise<void>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason as Error);
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal.reason as Error);
      };
      signal.addEventListener('abort', onAbort, { once: true });
    });
  },
};
