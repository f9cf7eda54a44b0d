import { useState, type FormEvent } from 'react';
import { ApiError } from '../../shared/api-client.ts';
import type { GroupInfo } from '../../shared/domain.ts';
import { formatRate } from '../../shared/durations.ts';
import { groupNameSchema, parseInput } from '../../shared/schemas.ts';
import { ValidationError } from '../../shared/errors.ts';
import { useApi } from '../state/api-context.tsx';
import { groupFields, groupUpdateFrom, type GroupFields, type Messages } from '../state/limits-form.ts';
import { useNotices } from '../state/notices.tsx';
import { describedBy, Field } from './Field.tsx';
import { groupLoadText } from './GroupCard.tsx';

/** Edits one group's limits (or, without `group`, creates a group with limits). */
export function GroupEditor({ group, onSaved }: { group: GroupInfo | null; onSaved(): void }) {
  const api = useApi();
  const { notify } = useNotices();
  const [fields, setFields] = useState<GroupFields>(() => groupFields(group));
  const [name, setName] = useState('');
  const [messages, setMessages] = useState<Messages>({});
  const [busy, setBusy] = useState(false);
  const id = group ? `group-${group.name}` : 'group-new';
  const saved = groupFields(group);
  const dirty = !group || JSON.stringify(saved) !== JSON.stringify(fields);

  const save = async (e: FormEvent) => {
    e.preventDefault();
    const { update, messages: m } = groupUpdateFrom(fields);
    const groupName = group?.name ?? name.trim();
    if (!group) {
      try {
        parseInput(groupNameSchema, groupName);
      } catch (err) {
        if (err instanceof ValidationError) m.name = err.issues[0]!.message;
      }
    }
    setMessages(m);
    if (Object.keys(m).length) return;
    setBusy(true);
    try {
      const g = await api.updateGroup({ name: groupName, update });
      const load = groupLoadText(g);
      notify(
        `Group ${g.name} saved: ${g.concurrency ?? 'no'} concurrency limit, rate ${formatRate(g.rate)} (${load.running})`,
        'green',
      );
      if (!group) {
        setName('');
        setFields(groupFields(null));
      }
      onSaved();
    } catch (err) {
      const issues = err instanceof ApiError ? err.info.issues : undefined;
      if (issues?.length)
        setMessages(
          Object.fromEntries(
            issues.map((i) => [i.path.split('.')[1] ?? i.path.split('.')[0] ?? 'form', i.message]),
          ),
        );
      else notify(`Could not save group ${groupName}: ${(err as Error).message}`, 'red');
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      className="group-editor"
      onSubmit={save}
      noValidate
      aria-label={group ? `Limits of group ${group.name}` : 'New group'}
    >
      {!group && (
        <Field id={`${id}-name`} label="Group name" message={messages.name}>
          <input
            {...describedBy(`${id}-name`, messages.name)}
            value={name}
            onChange={(e) => setName(e.target.value)}
            placeholder="vendor"
          />
        </Field>
      )}
      <Field
        id={`${id}-concurrency`}
        label="At once"
        hint="empty: only the global limit"
        message={messages.concurrency}
      >
        <input
          {...describedBy(`${id}-concurrency`, messages.concurrency, 'empty: only the global limit')}
          inputMode="numeric"
          value={fields.concurrency}
          placeholder="no limit"
          onChange={(e) => setFields({ ...fields, concurrency: e.target.value })}
        />
      </Field>
      <Field
        id={`${id}-rate`}
        label="Rate limit"
        hint="e.g. 10/min, 5/s, 30/15min; empty: none"
        message={messages.rate}
      >
        <input
          {...describedBy(`${id}-rate`, messages.rate, 'e.g. 10/min, 5/s, 30/15min; empty: none')}
          value={fields.rate}
          placeholder="none"
          onChange={(e) => setFields({ ...fields, rate: e.target.value })}
        />
      </Field>
      <Field
        id={`${id}-burst`}
        label="Burst"
        hint="at once within the rate; empty: evenly spaced"
        message={messages.burst}
      >
        <input
          {...describedBy(`${id}-burst`, messages.burst, 'at once within the rate; empty: evenly spaced')}
          inputMode="numeric"
          value={fields.burst}
          placeholder="spaced"
          onChange={(e) => setFields({ ...fields, burst: e.target.value })}
        />
      </Field>
      <label className="check-field">
        <input
          type="checkbox"
          checked={fields.adaptive}
          onChange={(e) => setFields({ ...fields, adaptive: e.target.checked })}
        />{' '}
        Learn the vendor&apos;s limit (adaptive): the limits above become caps; a 429 lowers them
      </label>
      <div className="button-row">
        <button type="submit" className="primary" disabled={busy || !dirty}>
          {group ? 'Save' : 'Add group'}
        </button>
        {group && dirty && (
          <button
            type="button"
            className="link"
            onClick={() => {
              setFields(saved);
              setMessages({});
            }}
          >
            Undo changes
          </button>
        )}
      </div>
    </form>
  );
}
