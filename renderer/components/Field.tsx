import type { ReactNode } from 'react';

/**
 * A labelled form field with its validation message next to it. The message is tied to the input
 * (aria-describedby / aria-invalid) by the caller passing `id` to both.
 */
export function Field(props: {
  id: string;
  label: string;
  hint?: string;
  /** the hint is a warning (amber, with a symbol), not a refusal: the form may still be sent */
  warn?: boolean;
  message?: string;
  children: ReactNode;
  wide?: boolean;
}) {
  const { id, label, hint, warn, message, children, wide } = props;
  return (
    <div className={`field${message ? ' invalid' : ''}${wide ? ' wide' : ''}`}>
      <label htmlFor={id}>{label}</label>
      {children}
      {hint && !message && (
        <span className={warn ? 'field-hint tone-amber' : 'field-hint'} id={`${id}-hint`}>
          {warn && <span aria-hidden="true">⚠ </span>}
          {hint}
        </span>
      )}
      {message && (
        <span className="field-message tone-red" id={`${id}-message`}>
          <span aria-hidden="true">✕ </span>
          {message}
        </span>
      )}
    </div>
  );
}

/** Props that connect an input to its Field's hint or message. */
export function describedBy(id: string, message: string | undefined, hint?: string) {
  return {
    id,
    'aria-invalid': message ? true : undefined,
    'aria-describedby': message ? `${id}-message` : hint ? `${id}-hint` : undefined,
  } as const;
}
