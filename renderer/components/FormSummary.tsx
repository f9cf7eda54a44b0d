import type { FieldIssue } from '../../shared/errors.ts';

/**
 * The alert at the top of a form: how many fields need fixing before `what` can happen (or the
 * server's own error), and the issues that belong to no field shown.
 */
export function FormSummary(props: {
  count: number;
  other: readonly FieldIssue[];
  serverError: string | null;
  /** "the task can be queued" */
  what: string;
}) {
  const { count, other, serverError, what } = props;
  if (count === 0 && !serverError) return null;
  return (
    <div id="form-summary" className="form-summary tone-red" role="alert">
      <p>
        <span aria-hidden="true">✕ </span>
        {serverError ?? `${count === 1 ? 'One field needs' : `${count} fields need`} fixing before ${what}.`}
      </p>
      {other.length > 0 && (
        <ul>
          {other.map((i) => (
            <li key={i.path + i.message}>{i.path ? `${i.path}: ${i.message}` : i.message}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
