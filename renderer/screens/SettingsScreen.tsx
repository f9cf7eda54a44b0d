import { useState, type FormEvent } from 'react';
import { ApiError } from '../../shared/api-client.ts';
import type { QueueSettings } from '../../shared/domain.ts';
import { LIMITS } from '../../shared/limits.ts';
import { AlertsForm, DurabilityForm } from '../components/AlertsSettings.tsx';
import { ErrorState } from '../components/ErrorState.tsx';
import { describedBy, Field } from '../components/Field.tsx';
import { LoadingState } from '../components/LoadingState.tsx';
import { PauseButton } from '../components/PauseButton.tsx';
import { useApi } from '../state/api-context.tsx';
import { settingsUpdateFrom, type Messages, type SettingsFields } from '../state/limits-form.ts';
import { useNotices } from '../state/notices.tsx';
import { useStats } from '../state/stats.tsx';
import { useQuery } from '../state/use-query.ts';
import { useSyncedFields } from '../state/synced-fields.ts';
import { describeQueue } from '../../shared/queue-place.ts';

const limitFields = (s: QueueSettings): SettingsFields => ({
  globalConcurrency: String(s.globalConcurrency),
  retentionDays: String(s.retentionDays),
});

export function SettingsScreen() {
  const stats = useStats();
  const place = useQuery((a) => a.queueInfo({}), [], { live: false, refreshMs: 0 });
  let body;
  if (stats.loading) body = <LoadingState label="Loading settings…" />;
  else if (!stats.data) body = <ErrorState error={stats.error!} what="settings" onRetry={stats.reload} />;
  else {
    const s = stats.data.settings;
    body = (
      <>
        <section className="panel" aria-labelledby="queue-state-title">
          <h2 id="queue-state-title">Queue</h2>
          <p>
            {s.paused
              ? 'Paused: nothing new starts until you resume.'
              : 'Running: tasks start as limits allow.'}{' '}
            <PauseButton paused={s.paused} onDone={stats.reload} />
          </p>
          {place.data && <p className="queue-place">Stored in: {describeQueue(place.data)}</p>}
        </section>
        {/* Not keyed by the saved values: a change from elsewhere must not throw away typing. */}
        <SettingsForm settings={s} onSaved={stats.reload} />
        <AlertsForm settings={s} onSaved={stats.reload} />
        <DurabilityForm settings={s} onSaved={stats.reload} backend={place.data?.backend} />
      </>
    );
  }
  return (
    <div className="screen settings-screen">
      <header className="screen-head">
        <h1>Settings</h1>
      </header>
      {body}
    </div>
  );
}

function SettingsForm({ settings, onSaved }: { settings: QueueSettings; onSaved(): void }) {
  const api = useApi();
  const { notify } = useNotices();
  const { fields, setFields, dirty, reset } = useSyncedFields(limitFields(settings));
  const [messages, setMessages] = useState<Messages>({});
  const [busy, setBusy] = useState(false);

  const save = async (e: FormEvent) => {
    e.preventDefault();
    const { update, messages: m } = settingsUpdateFrom(fields);
    setMessages(m);
    if (Object.keys(m).length) return;
    setBusy(true);
    try {
      const s = await api.updateSettings(update);
      notify(
        `Saved: up to ${s.globalConcurrency} tasks at once, finished tasks kept ${s.retentionDays} days`,
        'green',
      );
      reset(limitFields(s));
      onSaved();
    } catch (err) {
      const issues = err instanceof ApiError ? err.info.issues : undefined;
      if (issues?.length) setMessages(Object.fromEntries(issues.map((i) => [i.path, i.message])));
      else notify(`Could not save the settings: ${(err as Error).message}`, 'red');
    } finally {
      setBusy(false);
    }
  };
  const concurrencyHint = `tasks running at once across every worker on this queue (${LIMITS.globalConcurrency.min}–${LIMITS.globalConcurrency.max})`;
  const retentionHint = 'finished tasks older than this are deleted; 0 keeps them forever';
  return (
    <form className="panel settings-form" onSubmit={save} noValidate aria-labelledby="limits-title">
      <h2 id="limits-title">Limits and retention</h2>
      <Field
        id="settings-concurrency"
        label="Global concurrency"
        hint={concurrencyHint}
        message={messages.globalConcurrency}
      >
        <input
          {...describedBy('settings-concurrency', messages.globalConcurrency, concurrencyHint)}
          inputMode="numeric"
          value={fields.globalConcurrency}
          onChange={(e) => setFields({ ...fields, globalConcurrency: e.target.value })}
        />
      </Field>
      <Field
        id="settings-retention"
        label="Keep finished tasks (days)"
        hint={retentionHint}
        message={messages.retentionDays}
      >
        <input
          {...describedBy('settings-retention', messages.retentionDays, retentionHint)}
          inputMode="numeric"
          value={fields.retentionDays}
          onChange={(e) => setFields({ ...fields, retentionDays: e.target.value })}
        />
      </Field>
      <div className="button-row">
        <button type="submit" className="primary" disabled={busy || !dirty}>
          Save settings
        </button>
      </div>
    </form>
  );
}
