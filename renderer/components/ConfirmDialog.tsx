import { useEffect, useId, useRef } from 'react';
import type { ConfirmRequest } from '../state/confirm.tsx';

export function ConfirmDialog({
  request,
  onClose,
}: {
  request: ConfirmRequest;
  onClose: (ok: boolean) => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);
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
        <button type="button" onClick={() => onClose(false)}>
          Keep as is
        </button>
        <button
          type="button"
          className={request.danger ? 'danger' : 'primary'}
          autoFocus
          onClick={() => onClose(true)}
        >
          {request.confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
