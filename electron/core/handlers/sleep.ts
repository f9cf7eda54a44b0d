import { z } from 'zod';
import type { Handler } from './registry.ts';

const sleepPayload = z.strictObject({
  ms: z
    .number({ error: 'must be a number of milliseconds from 0 to 86400000' })
    .int({ error: 'must be a whole number of milliseconds' })
    .min(0, { error: 'must be a number of milliseconds from 0 to 86400000' })
    .max(86_400_000, { error: 'must be a number of milliseconds from 0 to 86400000' }),
});

/** Waits `ms` milliseconds (0: returns at once). Used by tests, benchmarks and as a spacer. */
export const sleepHandler: Handler<z.infer<typeof sleepPayload>> = {
  kind: 'sleep',
  description: 'wait {ms} milliseconds; ms 0 is a no-op',
  payload: sleepPayload,
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
