import { useEffect, useId, useRef } from 'react';
import type { ConfirmRequest } from '../state/confirm.tsx';
import { restoreFocus } from '../state/focus.ts';

export function ConfirmDialog({
  request,
  onClose,
}: {
  request: ConfirmRequest;
  onClose: (ok: boolean) => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const confirmRef = useRef<HTMLButtonElement>(null);
  const keepRef = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  const danger = request.danger === true;
  useEffect(() => {
    const dialog = ref.current;
    const opener = document.activeElement;
    if (dialog && !dialog.open) dialog.showModal();
    // showModal() moves focus by its own rules (React's autoFocus is lost by then): the
    // confirming button for an action that can be undone, so R then Enter retries; "Keep as is"
    // for a destructive one.
    (danger ? keepRef : confirmRef).current?.focus();
    return () => {
      if (dialog?.open) dialog.close();
      restoreFocus(opener);
    };
  }, [danger]);
  return (
    <dialog
      ref={ref}
      className="confirm"
      aria-labelledby={titleId}
      onCancel={(e) => {
        e.preventDefault();
        onClose(false);
      }}
    >
      <p id={titleId} className="confirm-question">
        {request.question}
      </p>
      {request.detail && <p className="confirm-detail">{request.detail}</p>}
      <div className="confirm-actions">
        <button ref={keepRef} type="button" onClick={() => onClose(false)}>
          Keep as is
        </button>
        <button
          ref={confirmRef}
          type="button"
          className={danger ? 'danger' : 'primary'}
          onClick={() => onClose(true)}
        >
          {request.confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
