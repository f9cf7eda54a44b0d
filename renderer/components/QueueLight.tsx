import { QUEUE_STATE_META, type QueueState } from '../state/status.ts';

/** The traffic light: which lamp is lit says the queue's state; the word says it too. */
export function QueueLight({ state }: { state: QueueState }) {
  const meta = QUEUE_STATE_META[state];
  const lit = { attention: 'top', busy: 'middle', idle: 'bottom', paused: 'none' }[state];
  return (
    <span className={`queue-light tone-${meta.tone}`} role="img" aria-label={`Queue: ${meta.word}`}>
      <span className="lamps" aria-hidden="true">
        <span className={`lamp lamp-red${lit === 'top' ? ' lit' : ''}`} />
        <span className={`lamp lamp-amber${lit === 'middle' ? ' lit' : ''}`} />
        <span className={`lamp lamp-green${lit === 'bottom' ? ' lit' : ''}`} />
      </span>
      <span className="queue-light-word" aria-hidden="true">
        {state === 'paused' ? '‖ ' : ''}
        {meta.word}
      </span>
    </span>
  );
}
