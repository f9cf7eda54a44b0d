import type { HistoryEntry } from '../../shared/domain.ts';
import { historyView } from '../../shared/attempt-view.ts';
import { exactTime, humanDuration } from '../state/format.ts';
import { CopyButton } from './CopyButton.tsx';
import { RelativeTime } from './RelativeTime.tsx';

const OUTCOME: Record<HistoryEntry['outcome'], { symbol: string; word: string }> = {
  running: { symbol: '▶', word: 'running' },
  done: { symbol: '✓', word: 'done' },
  failed: { symbol: '✕', word: 'failed' },
  retry: { symbol: '↻', word: 'failed, will retry' },
  'retry-after': { symbol: '↻', word: 'server asked to wait' },
  timeout: { symbol: '✕', word: 'timed out' },
  cancelled: { symbol: '⊘', word: 'cancelled' },
  lost: { symbol: '?', word: 'worker lost' },
  released: { symbol: '⏏', word: 'released on shutdown' },
  retried: { symbol: '↻', word: 'retried by user' },
  priority: { symbol: '⇅', word: 'priority changed' },
};

/**
 * Every attempt (timing, how it ended, error, output tail) and operator action, newest first;
 * attempts numbered in the order they ran, also across manual retries.
 */
export function HistoryList({ history, now }: { history: HistoryEntry[]; now: number }) {
  if (history.length === 0) return <p className="muted">Not started yet.</p>;
  return (
    <ol className="history" reversed>
      {historyView(history).map(({ entry: h, ordinal, waitedMs, code, sameErrorAs, tone }) => {
        const o = OUTCOME[h.outcome];
        const took = h.endedAt !== null ? h.endedAt - h.startedAt : now - h.startedAt;
        return (
          <li key={h.id} className={`history-entry ${h.type}`} data-outcome={h.outcome}>
            <div className="history-head">
              <strong>{ordinal !== null ? `Attempt ${ordinal}` : 'Action'}</strong>
              <span className={`status tone-${tone}`}>
                <span aria-hidden="true">{o.symbol}</span> <span className="status-word">{o.word}</span>
              </span>
              {code && <span className="history-code">{code}</span>}
              <span className="muted">
                <RelativeTime at={h.startedAt} now={now} />
                {h.type === 'attempt' && (
                  <span title={h.endedAt ? `ended ${exactTime(h.endedAt)}` : undefined}>
                    {' '}
                    · {h.endedAt === null ? 'running for ' : 'took '}
                    {humanDuration(took)}
                  </span>
                )}
                {waitedMs !== null && <> · after a wait of {humanDuration(waitedMs)}</>}
                {h.worker && <> · {h.worker}</>}
              </span>
            </div>
            {h.error &&
              (sameErrorAs !== null ? (
                <p className="history-error muted">Same error as attempt {sameErrorAs}.</p>
              ) : (
                <div className="history-error-row">
                  <p className={`history-error tone-${h.type === 'attempt' ? tone : 'grey'}`}>{h.error}</p>
                  <CopyButton text={h.error} what={`the error of attempt ${ordinal ?? ''}`.trim()} />
                </div>
              ))}
            {h.output && (
              <details open>
                <summary>
                  {h.outcome === 'running' ? 'Output so far (last lines)' : 'Output (last lines)'}
                </summary>
                <pre className="code" aria-label={`Output of attempt ${ordinal ?? ''}`.trim()}>
                  {h.output}
                </pre>
                <CopyButton text={h.output} what="the output" />
              </details>
            )}
          </li>
        );
      })}
    </ol>
  );
}
