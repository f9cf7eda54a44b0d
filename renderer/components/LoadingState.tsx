export function LoadingState({ label }: { label: string }) {
  return (
    <div className="state-box loading-state" role="status" aria-busy="true">
      <span className="spinner" aria-hidden="true" />
      <p className="state-title">{label}</p>
    </div>
  );
}
