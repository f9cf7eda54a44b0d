import { useNotices } from '../state/notices.tsx';

/** Where action results appear; a polite live region read out by screen readers. */
export function NoticeArea() {
  const { notices, dismiss } = useNotices();
  return (
    <div className="notices" role="status" aria-live="polite">
      {notices.map((n) => (
        <p key={n.id} className={`notice tone-${n.tone}`}>
          <span>{n.text}</span>
          <button type="button" className="link" aria-label="Dismiss" onClick={() => dismiss(n.id)}>
            ×
          </button>
        </p>
      ))}
    </div>
  );
}
