import type { JsonValue } from '../../shared/domain.ts';

/** A payload or result as indented JSON (bounded by the engine, so printing it all is fine). */
export function JsonBlock({ value, label }: { value: JsonValue | null; label: string }) {
  if (value === null) return <p className="muted">none</p>;
  return (
    <pre className="code" aria-label={label} tabIndex={0}>
      {typeof value === 'string' ? value : JSON.stringify(value, null, 2)}
    </pre>
  );
}
