import { useEffect, useState } from 'react';

/** Copies `text` to the clipboard and says so for a moment (also to a screen reader). */
export function CopyButton({ text, what }: { text: string; what: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const t = setTimeout(() => setState('idle'), 1500);
    return () => clearTimeout(t);
  }, [state]);
  return (
    <button
      type="button"
      className="link copy-button"
      aria-label={`Copy ${what}`}
      onClick={() =>
        // The clipboard exists only in a secure context (the app, localhost): say when it fails.
        void (navigator.clipboard?.writeText(text) ?? Promise.reject(new Error('no clipboard'))).then(
          () => setState('copied'),
          () => setState('failed'),
        )
      }
    >
      <span aria-live="polite">
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Cannot copy here' : 'Copy'}
      </span>
    </button>
  );
}
