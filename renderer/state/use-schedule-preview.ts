/**
 * The next due times of the recurrence being typed, from the server's previewSchedule (the same
 * croner and zone rules that will run it). Debounced, so typing an expression asks once per pause
 * rather than once per key; an answer for text that has since changed is dropped.
 */
import { useEffect, useRef, useState } from 'react';
import { ApiError } from '../../shared/api-client.ts';
import type { FieldIssue } from '../../shared/errors.ts';
import { useApi } from './api-context.tsx';
import type { RecurrenceState } from './schedule-form.ts';

export const PREVIEW_DEBOUNCE_MS = 200;
export const PREVIEW_COUNT = 5;

export type Preview =
  | { state: 'waiting' }
  /** nothing typed yet; `hint` says what to type */
  | { state: 'empty'; hint: FieldIssue }
  | { state: 'times'; times: number[]; timezone: string | null }
  /** the recurrence is invalid: the issues name the field and the problem */
  | { state: 'invalid'; issues: FieldIssue[] }
  | { state: 'error'; message: string };

export function useSchedulePreview(rec: RecurrenceState): { preview: Preview; pending: boolean } {
  const api = useApi();
  const [preview, setPreview] = useState<Preview>({ state: 'waiting' });
  const [pending, setPending] = useState(false);
  const seq = useRef(0);
  const key = JSON.stringify(rec);

  useEffect(() => {
    const mine = ++seq.current;
    const current = JSON.parse(key) as RecurrenceState;
    setPending(true);
    const timer = setTimeout(() => {
      const settle = (p: Preview) => {
        if (mine !== seq.current) return;
        setPreview(p);
        setPending(false);
      };
      if (current.kind === 'empty') return settle({ state: 'empty', hint: current.issue });
      if (current.kind === 'problem') return settle({ state: 'invalid', issues: [current.issue] });
      api.previewSchedule({ ...current.input, count: PREVIEW_COUNT }).then(
        (r) => settle({ state: 'times', times: r.times, timezone: r.timezone }),
        (err: unknown) => {
          if (err instanceof ApiError && err.info.issues?.length)
            settle({ state: 'invalid', issues: err.info.issues });
          else settle({ state: 'error', message: err instanceof Error ? err.message : String(err) });
        },
      );
    }, PREVIEW_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [api, key]);

  return { preview, pending };
}
