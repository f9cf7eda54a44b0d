/** A task's reported progress, or an indeterminate bar while it reports none. */
export function ProgressBar({ value, label }: { value: number | null; label: string }) {
  if (value === null)
    return (
      <span
        className="progress indeterminate"
        role="progressbar"
        aria-label={label}
        aria-valuetext="running"
      />
    );
  const pct = Math.round(Math.max(0, Math.min(1, value)) * 100);
  return (
    <span
      className="progress"
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={pct}
    >
      <span className="progress-fill" style={{ width: `${pct}%` }} />
    </span>
  );
}
