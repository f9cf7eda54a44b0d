import { ApiError } from '../../shared/api-client.ts';

/** A failed load: what went wrong, in words, and a way to try again. */
export function ErrorState({ error, what, onRetry }: { error: Error; what: string; onRetry?: () => void }) {
  const status = error instanceof ApiError ? error.status : 0;
  const hint =
    status === 401
      ? 'The token was refused. Open the Dashboard address that `semaforo serve` printed.'
      : error instanceof ApiError && error.info.name === 'NetworkError'
        ? 'Is `semaforo serve` still running?'
        : undefined;
  return (
    <div className="state-box error-state tone-red" role="alert">
      <span className="state-symbol" aria-hidden="true">
        ✕
      </span>
      <p className="state-title">Could not load {what}</p>
      <p className="state-body">{error.message}</p>
      {hint && <p className="state-body">{hint}</p>}
      {onRetry && (
        <button type="button" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}
