/**
 * Asks before destructive and bulk actions, saying what they will touch. A native <dialog> gives
 * focus trapping and Escape for free; the question is the dialog's accessible name.
 */
import { createContext, useCallback, useContext, useState, type ReactNode } from 'react';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';

export interface ConfirmRequest {
  /** the question, naming what is touched: "Retry 37 failed tasks in group vendor?" */
  question: string;
  detail?: string;
  confirmLabel: string;
  danger?: boolean;
}

type Ask = (request: ConfirmRequest) => Promise<boolean>;
const ConfirmContext = createContext<Ask | null>(null);

export function ConfirmProvider({ children }: { children: ReactNode }) {
  const [open, setOpen] = useState<(ConfirmRequest & { resolve: (ok: boolean) => void }) | null>(null);
  const ask = useCallback<Ask>(
    (request) =>
      new Promise<boolean>((resolve) => {
        setOpen({ ...request, resolve });
      }),
    [],
  );
  const close = (ok: boolean) => {
    open?.resolve(ok);
    setOpen(null);
  };
  return (
    <ConfirmContext.Provider value={ask}>
      {children}
      {open && <ConfirmDialog request={open} onClose={close} />}
    </ConfirmContext.Provider>
  );
}

export function useConfirm(): Ask {
  const ask = useContext(ConfirmContext);
  if (!ask) throw new Error('useConfirm outside <ConfirmProvider>');
  return ask;
}
