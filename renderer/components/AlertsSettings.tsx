import { useState, type FormEvent } from 'react';
import { ApiError } from '../../shared/api-client.ts';
import { DURABILITIES, type QueueSettings } from '../../shared/domain.ts';
import type { QueueBackend } from '../../shared/queue-place.ts';
import type { SettingsUpdate } from '../../shared/schemas.ts';
import { describedBy, Field } from './Field.tsx';
import { useApi } from '../state/api-context.tsx';
import {
  alertFields,
  alertsUpdateFrom,
  DURABILITY_WORDS,
  durabilityUpdateFrom,
  messagesOf,
} from '../state/alerts-form.ts';
import type { Messages } from '../state/limits-form.ts';
import { useNotices } from '../state/notices.tsx';
import { useSyncedFields } from '../state/synced-fields.ts';

/** Sends a checked update; the server's own refusal lands next to its field as well. */
function useSave(onSaved: () => void) {
  const api = useApi();
  const { notify } = useNotices();
  const [busy, setBusy] = useState(false);
  const save = async (
    check: { update: SettingsUpdate; messages: Messages; groups?: string[] },
    setMessages: (m: Messages) => void,
    saved: (s: QueueSettings) => string,
    reset: (s: QueueSettings) => void,
  ) => {
    setMessages(check.messages);
    if (Object.keys(check.messages).length) return;
    setBusy(true);
    try {
      const s = await api.updateSettings(check.update);
      notify(saved(s), 'green');
      reset(s);
      onSaved();
    } catch (err) {
      const issues = err instanceof ApiError ? err.info.issues : undefined;
      if (issues?.length) setMessages(messagesOf(issues, check.groups));
      else notify(`Could not save the settings: ${(err as Error).message}`, 'red');
    } finally {
      setBusy(false);
    }
  };
  return { busy, save };
}

/** Desktop notifications and the webhook for tasks that fail for good. */
export function AlertsForm({ settings, onSaved }: { settings: QueueSettings; onSaved(): void }) {
  const { fields, setFields, dirty, reset } = useSyncedFields(alertFields(settings));
  const [messages, setMessages] = useState<Messages>({});
  const { busy, save } = useSave(onSaved);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void save(
      alertsUpdateFrom(fields),
      setMessages,
      (s) =>
        [
          `Saved: notifications ${s.notifications.enabled ? 'on' : 'off'}`,
          s.failureWebhook ? `webhook ${s.failureWebhook}` : 'no webhook',
        ].join(', '),
      (s) => reset(alertFields(s)),
    );
  };
  const groupsHint = 'comma-separated; blank: every group';
  const webhookHint =
    'an http:// or https:// URL; each task that fails for good is POSTed to it as JSON. Blank: none';
  return (
    <form className="panel settings-form" onSubmit={submit} noValidate aria-labelledby="alerts-title">
      <h2 id="alerts-title">Failure alerts</h2>
      <label className="checkbox-field">
        <input
          type="checkbox"
          checked={fields.notify}
          onChange={(e) => setFields({ ...fields, notify: e.target.checked })}
        />
        Desktop notification when a task fails for good
      </label>
      <Field
        id="settings-notify-groups"
        label="Notify for groups"
        hint={groupsHint}
        message={messages.notifyGroups}
      >
        <input
          {...describedBy('settings-notify-groups', messages.notifyGroups, groupsHint)}
          value={fields.notifyGroups}
          placeholder="every group"
          onChange={(e) => setFields({ ...fields, notifyGroups: e.target.value })}
        />
      </Field>
      <Field id="settings-webhook" label="Failure webhook" hint={webhookHint} message={messages.webhook}>
        <input
          {...describedBy('settings-webhook', messages.webhook, webhookHint)}
          type="url"
          inputMode="url"
          value={fields.webhook}
          placeholder="https://hooks.example.com/semaforo"
          onChange={(e) => setFields({ ...fields, webhook: e.target.value })}
        />
      </Field>
      <div className="button-row">
        <button type="submit" className="primary" disabled={busy || !dirty}>
          Save alerts
        </button>
      </div>
    </form>
  );
}

/** What a commit waits for, each choice explained in one sentence. */
export function DurabilityForm({
  settings,
  onSaved,
  backend,
}: {
  settings: QueueSettings;
  onSaved(): void;
  /** the store the queue is on; undefined while not yet known */
  backend: QueueBackend | undefined;
}) {
  const synced = useSyncedFields<{ durability: string }>({ durability: settings.durability });
  const choice = synced.fields.durability;
  const setChoice = (durability: string) => synced.setFields({ durability });
  const [messages, setMessages] = useState<Messages>({});
  const { busy, save } = useSave(onSaved);
  // The PostgreSQL store never reads this setting: its commits wait as its server says.
  if (backend === 'postgres')
    return (
      <section className="panel settings-form" aria-labelledby="durability-title">
        <h2 id="durability-title">Durability</h2>
        <p className="muted">
          Applies to SQLite queues only. This queue is on PostgreSQL: a commit waits as the server&apos;s{' '}
          <code>synchronous_commit</code> says.
        </p>
      </section>
    );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void save(
      durabilityUpdateFrom(choice),
      setMessages,
      (s) => `Saved: durability ${s.durability}`,
      (s) => synced.reset({ durability: s.durability }),
    );
  };
  return (
    <form className="panel settings-form" onSubmit={submit} noValidate aria-labelledby="durability-title">
      <h2 id="durability-title">Durability</h2>
      <fieldset
        className="choices"
        aria-describedby={messages.durability ? 'settings-durability-message' : undefined}
      >
        <legend>What a commit waits for</legend>
        {DURABILITIES.map((d) => (
          <div key={d} className="choice">
            <input
              type="radio"
              id={`durability-${d}`}
              name="durability"
              value={d}
              checked={choice === d}
              aria-describedby={`durability-${d}-words`}
              onChange={() => setChoice(d)}
            />
            <span>
              <label htmlFor={`durability-${d}`}>{DURABILITY_WORDS[d].label}</label>
              <span className="field-hint" id={`durability-${d}-words`}>
                {DURABILITY_WORDS[d].sentence}
              </span>
            </span>
          </div>
        ))}
        {messages.durability && (
          <span className="field-message tone-red" id="settings-durability-message">
            <span aria-hidden="true">✕ </span>
            {messages.durability}
          </span>
        )}
      </fieldset>
      <div className="button-row">
        <button type="submit" className="primary" disabled={busy || !synced.dirty}>
          Save durability
        </button>
      </div>
    </form>
  );
}
