import { exactTime, relativeTime } from '../state/format.ts';

/** "3 min ago", with the exact time on hover. */
export function RelativeTime({ at, now }: { at: number | null; now: number }) {
  if (at === null) return <span className="muted">—</span>;
  return (
    <time dateTime={new Date(at).toISOString()} title={exactTime(at)}>
      {relativeTime(at, now)}
    </time>
  );
}
