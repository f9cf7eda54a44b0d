import { localTimeZone } from '../../shared/schedule-times.ts';
import { dateTimeIn, relativeTime } from '../state/format.ts';
import type { Preview } from '../state/use-schedule-preview.ts';
import { useNow } from '../state/use-now.ts';

/** What the spec's field paths are called on the form. */
const FIELD_LABELS: Record<string, string> = {
  cron: 'Cron expression',
  timezone: 'Time zone',
  everyMs: 'Interval',
  count: 'Count',
};

/**
 * The next five due times as the user types: in the schedule's zone, with this machine's time
 * beside them when that zone is another one; or the message that names what is wrong.
 */
export function SchedulePreview({ preview, pending }: { preview: Preview; pending: boolean }) {
  const now = useNow(5000);
  const local = localTimeZone();
  let body;
  switch (preview.state) {
    case 'waiting':
      body = <p className="muted">Working out the next runs…</p>;
      break;
    case 'empty':
      body = (
        <p className="muted">
          Type {preview.hint.path === 'cron' ? 'a cron expression' : 'an interval'} to see when it runs.
        </p>
      );
      break;
    case 'invalid':
      body = (
        <ul className="preview-problems tone-red" data-testid="preview-problem">
          {preview.issues.map((i) => (
            <li key={i.path + i.message}>
              <span aria-hidden="true">✕ </span>
              {FIELD_LABELS[i.path] ?? i.path} {i.message}
            </li>
          ))}
        </ul>
      );
      break;
    case 'error':
      body = <p className="tone-red">Could not work out the next runs: {preview.message}</p>;
      break;
    case 'times': {
      const zone = preview.timezone ?? local;
      const seconds = preview.timezone === null && preview.times.some((t) => new Date(t).getSeconds() !== 0);
      body =
        preview.times.length === 0 ? (
          <p className="muted">This never comes due again.</p>
        ) : (
          <>
            <p className="muted preview-zone">
              in {zone}
              {zone === local ? ' (this machine’s zone)' : ''}
            </p>
            <ol className="preview-times" aria-label="Next five runs">
              {preview.times.map((t) => (
                <li key={t}>
                  <time dateTime={new Date(t).toISOString()}>{dateTimeIn(t, zone, seconds)}</time>{' '}
                  <span className="muted">
                    {relativeTime(t, now)}
                    {zone !== local && ` · ${dateTimeIn(t, local)} here`}
                  </span>
                </li>
              ))}
            </ol>
          </>
        );
      break;
    }
  }
  return (
    <section
      className="schedule-preview wide"
      aria-labelledby="schedule-preview-title"
      aria-live="polite"
      aria-busy={pending}
    >
      <h3 id="schedule-preview-title">Next runs</h3>
      {body}
    </section>
  );
}
