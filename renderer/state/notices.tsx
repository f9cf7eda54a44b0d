/**
 * Result messages ("37 tasks back in the queue"): one polite live region for the window, so a
 * screen reader hears what an action did and nobody has to dismiss a dialog.
 */
import { createContext, useCallback, useContext, useMemo, useRef, useState, type ReactNode } from 'react';
import type { Tone } from './status.ts';

export interface Notice {
  id: number;
  text: string;
  tone: Tone | 'neutral';
}

interface NoticeApi {
  notices: Notice[];
  notify(text: string, tone?: Notice['tone']): void;
  dismiss(id: number): void;
}

const NoticeContext = createContext<NoticeApi | null>(null);
const SHOW_MS = 8000;

export function NoticeProvider({ children }: { children: ReactNode }) {
  const [notices, setNotices] = useState<Notice[]>([]);
  const nextId = useRef(1);
  const dismiss = useCallback((id: number) => setNotices((list) => list.filter((n) => n.id !== id)), []);
  const notify = useCallback(
    (text: string, tone: Notice['tone'] = 'neutral') => {
      const id = nextId.current++;
      setNotices((list) => [...list.slice(-2), { id, text, tone }]);
      setTimeout(() => dismiss(id), SHOW_MS);
    },
    [dismiss],
  );
  const value = useMemo(() => ({ notices, notify, dismiss }), [notices, notify, dismiss]);
  return <NoticeContext.Provider value={value}>{children}</NoticeContext.Provider>;
}

export function useNotices(): NoticeApi {
  const v = useContext(NoticeContext);
  if (!v) throw new Error('useNotices outside <NoticeProvider>');
  return v;
}
