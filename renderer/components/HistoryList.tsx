import type { HistoryEntry } from '../../shared/domain.ts';
import { exactTime, humanDuration } from '../state/format.ts';
import { RelativeTime } from './RelativeTime.tsx';

const OUTCOME: Record<HistoryEntry['outcome'], { symbol: string; word: string; tone: string }> = {
  running: { symbol: '▶', word: 'running', tone: 'amber' },
  done: { symbol: '✓', word: 'done', tone: 'green' },
  failed: { symbol: '✕', word: 'failed', tone: 'red' },
  retry: { symbol: '↻', word: 'failed, will retry', tone: 'amber' },
  'retry-after': { symbol: '↻', word: 'server asked to wait', tone: 'amber' },
  timeout: { symbol: '✕', word: 'timed out', tone: 'red' },
  cancelled: { symbol: '⊘', word: 'cancelled', tone: 'grey' },
  lost: { symbol: '?', word: 'worker lost', tone: 'amber' },
  released: { symbol: '⏏', word: 'released on shutdown', tone: 'grey' },
  retried: { symbol: '↻', word: 'retried by user', tone: 'grey' },
  priority: { symbol: '⇅', word: 'priority changed', tone: 'grey' },
};

/** Every attempt (timing, error, output tail) and operator action, oldest first. */
export function HistoryList({ history, now }: { history: HistoryEntry[]; now: number }) {
  if (history.length === 0) return <p className="muted">Not started yet.</p>;
  return (
    <ol className="history">
      {history.map((h) => {
        const o = OUTCOME[h.outcome];
        const took = h.endedAt !== null ? h.endedAt - h.startedAt : now - h.startedAt;
        return (
          <li key={h.id} className={`history-entry ${h.type}`}>
            <div className="history-head">
              <strong>{h.type === 'attempt' ? `Attempt ${h.attempt}` : 'Action'}</strong>
              <span className={`status tone-${o.tone}`}>
                <span aria-hidden="true">{o.symbol}</span> <span className="status-word">{o.word}</span>
              </span>
              <span className="muted">
                <RelativeTime at={h.startedAt} now={now} />
                {h.type === 'attempt' && (
                  <span title={h.endedAt ? `ended ${exactTime(h.endedAt)}` : undefined}>
                    {' '}
                    · {h.endedAt === null ? 'running for ' : 'took '}
                    {humanDuration(took)}
                  </span>
                )}
                {h.worker && <> · {h.worker}</>}
              </span>
            </div>
            {h.error && (
              <p className={`history-error${h.type === 'attempt' ? ' tone-red' : ''}`}>{h.error}</p>
            )}
            {h.output && (
              <details open>
                <summary>Output (last lines)</summary>
                <pre className="code">{h.output}</pre>
              </details>
            )}
          </li>
        );
      })}
    </ol>
  );
}
