import { useState } from 'react';
import { useApi } from '../state/api-context.tsx';
import { useNotices } from '../state/notices.tsx';

/** Pauses or resumes the whole queue (or one group); running tasks always finish. */
export function PauseButton({ paused, group, onDone }: { paused: boolean; group?: string; onDone(): void }) {
  const api = useApi();
  const { notify } = useNotices();
  const [busy, setBusy] = useState(false);
  const what = group ? `group ${group}` : 'queue';
  const toggle = async () => {
    setBusy(true);
    try {
      const input = group ? { group } : {};
      if (paused) await api.resume(input);
      else await api.pause(input);
      notify(
        paused ? `The ${what} runs again` : `The ${what} is paused: running tasks finish, nothing new starts`,
        paused ? 'green' : 'grey',
      );
      onDone();
    } catch (err) {
      notify(`Could not ${paused ? 'resume' : 'pause'} the ${what}: ${(err as Error).message}`, 'red');
    } finally {
      setBusy(false);
    }
  };
  return (
    <button type="button" className={paused ? 'primary' : undefined} disabled={busy} onClick={toggle}>
      {paused ? (
        <>
          <span aria-hidden="true">▶</span> Resume {group ? 'group' : 'queue'}
        </>
      ) : (
        <>
          <span aria-hidden="true">‖</span> Pause {group ? 'group' : 'queue'}
        </>
      )}
    </button>
  );
}
