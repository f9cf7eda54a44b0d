import type { Tone } from '../state/status.ts';
import { formatCount } from '../state/format.ts';

/**
 * One of the overview's four large numbers; a button that opens the matching list. Its name is its
 * text ("3 Running"), so what a voice-control user reads is what they can say.
 */
export function BigNumber(props: {
  label: string;
  value: number | undefined;
  symbol: string;
  tone: Tone;
  hint?: string;
  onOpen?: () => void;
}) {
  const { label, value, symbol, tone, hint, onOpen } = props;
  return (
    <button
      type="button"
      className={`big-number tone-${tone}`}
      onClick={onOpen}
      aria-busy={value === undefined}
    >
      <span className="big-number-value" data-testid={`count-${label.toLowerCase()}`}>
        {value === undefined ? '–' : formatCount(value)}
      </span>
      <span className="big-number-label">
        <span aria-hidden="true">{symbol}</span> {label}
      </span>
      {hint && <span className="big-number-hint">{hint}</span>}
    </button>
  );
}
