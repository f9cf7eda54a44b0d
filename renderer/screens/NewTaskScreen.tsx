import { useMemo, useState, type FormEvent } from 'react';
import { ApiError } from '../../shared/api-client.ts';
import type { FieldIssue } from '../../shared/errors.ts';
import { LIMITS } from '../../shared/schemas.ts';
import { describedBy, Field } from '../components/Field.tsx';
import { KindFields } from '../components/KindFields.tsx';
import { useApi } from '../state/api-context.tsx';
import { useNotices } from '../state/notices.tsx';
import { useStats } from '../state/stats.tsx';
import {
  buildSpec,
  EMPTY_FORM,
  FIELD_PATHS,
  fieldOf,
  FORM_KINDS,
  visibleFields,
  type FieldName,
  type TaskForm,
} from '../state/task-form.ts';
import { useQuery } from '../state/use-query.ts';

/**
 * Issues sorted onto the fields shown; the rest go to the summary at the top. An issue below a
 * field's path (one header, one argument) keeps that part in its message.
 */
function placeIssues(issues: FieldIssue[], kind: string) {
  const fields = visibleFields(kind);
  const byField: Partial<Record<FieldName, string>> = {};
  const other: FieldIssue[] = [];
  for (const issue of issues) {
    const f = fieldOf(issue.path, fields);
    if (!f) {
      other.push(issue);
      continue;
    }
    if (byField[f]) continue;
    const part = issue.path.slice(FIELD_PATHS[f].length).replace(/^\./, '');
    byField[f] = part ? `${part}: ${issue.message}` : issue.message;
  }
  return { byField, other };
}

export function NewTaskScreen(props: { initial: TaskForm | null; onCreated(taskId: number): void }) {
  const api = useApi();
  const { notify } = useNotices();
  const stats = useStats();
  const kinds = useQuery((a) => a.kinds({}), [], { live: false, refreshMs: 0 });
  const [form, setForm] = useState<TaskForm>(props.initial ?? EMPTY_FORM);
  const [submitted, setSubmitted] = useState(false);
  const [serverIssues, setServerIssues] = useState<FieldIssue[] | null>(null);
  const [serverError, setServerError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const local = useMemo(() => buildSpec(form), [form]);
  // Messages show once the user tried to submit (not while they are still typing the first time).
  const issues = submitted ? (serverIssues ?? local.issues) : [];
  const { byField, other } = placeIssues(issues, form.kind);

  const set = (name: FieldName, value: string) => {
    setForm((f) => ({ ...f, [name]: value }));
    setServerIssues(null);
    setServerError(null);
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSubmitted(true);
    setServerIssues(null);
    setServerError(null);
    if (local.issues.length > 0) return;
    setBusy(true);
    try {
      const { task, created } = await api.enqueue(local.spec);
      notify(
        created
          ? `Task ${task.id} “${task.name}” queued`
          : `Task ${task.id} already holds that unique key; nothing added`,
        'amber',
      );
      props.onCreated(task.id);
    } catch (err) {
      if (err instanceof ApiError && err.info.issues?.length) setServerIssues(err.info.issues);
      else setServerError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const kindNames = [...new Set([...FORM_KINDS, ...(kinds.data ?? []).map((k) => k.kind)])];
  const groupNames = (stats.data?.groups ?? []).map((g) => g.name);
  const msg = (f: FieldName) => byField[f];
  const input = (f: FieldName, hint?: string) => ({
    ...describedBy(`task-${f}`, msg(f), hint),
    value: form[f],
    onChange: (e: { target: { value: string } }) => set(f, e.target.value),
  });

  return (
    <div className="screen new-task">
      <header className="screen-head">
        <h1>New task</h1>
        {props.initial && <span className="muted">prefilled from an existing task</span>}
      </header>
      <form
        className="task-form"
        noValidate
        onSubmit={submit}
        aria-describedby={issues.length ? 'form-summary' : undefined}
      >
        {(issues.length > 0 || serverError) && (
          <div id="form-summary" className="form-summary tone-red" role="alert">
            <p>
              <span aria-hidden="true">✕ </span>
              {serverError ??
                `${issues.length === 1 ? 'One field needs' : `${issues.length} fields need`} fixing before the task can be queued.`}
            </p>
            {other.length > 0 && (
              <ul>
                {other.map((i) => (
                  <li key={i.path + i.message}>{i.path ? `${i.path}: ${i.message}` : i.message}</li>
                ))}
              </ul>
            )}
          </div>
        )}
        <fieldset>
          <legend>What to run</legend>
          <Field id="task-kind" label="Kind" message={msg('kind')}>
            <select {...input('kind')}>
              {kindNames.map((k) => (
                <option key={k} value={k}>
                  {k}
                  {kinds.data?.find((d) => d.kind === k)?.source === 'user' ? ' (yours)' : ''}
                </option>
              ))}
            </select>
          </Field>
          <KindFields form={form} message={msg} input={input} />
        </fieldset>
        <fieldset>
          <legend>How to run it</legend>
          <Field
            id="task-name"
            label="Name"
            hint="shown in lists; defaults to the command or the kind"
            message={msg('name')}
          >
            <input
              {...input('name', 'shown in lists; defaults to the command or the kind')}
              maxLength={LIMITS.nameLength + 1}
            />
          </Field>
          <Field
            id="task-group"
            label="Group"
            hint="whose limits apply; default: default"
            message={msg('group')}
          >
            <input
              {...input('group', 'whose limits apply; default: default')}
              list="known-groups"
              placeholder="default"
            />
          </Field>
          <datalist id="known-groups">
            {groupNames.map((g) => (
              <option key={g} value={g} />
            ))}
          </datalist>
          <Field id="task-priority" label="Priority" hint="0 runs first, 9 last" message={msg('priority')}>
            <input {...input('priority', '0 runs first, 9 last')} inputMode="numeric" />
          </Field>
          <Field
            id="task-maxAttempts"
            label="Max attempts"
            hint={`default ${LIMITS.maxAttempts.default}`}
            message={msg('maxAttempts')}
          >
            <input
              {...input('maxAttempts', `default ${LIMITS.maxAttempts.default}`)}
              inputMode="numeric"
              placeholder={String(LIMITS.maxAttempts.default)}
            />
          </Field>
          <Field
            id="task-timeout"
            label="Timeout per attempt"
            hint="e.g. 30s, 5m, 2h; empty: none"
            message={msg('timeout')}
          >
            <input {...input('timeout', 'e.g. 30s, 5m, 2h; empty: none')} placeholder="none" />
          </Field>
          <Field
            id="task-delay"
            label="Delay"
            hint="start no sooner than this from now, e.g. 10m"
            message={msg('delay')}
          >
            <input {...input('delay', 'start no sooner than this from now, e.g. 10m')} placeholder="0" />
          </Field>
        </fieldset>
        <div className="form-actions">
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Queueing…' : 'Queue task'}
          </button>
          <button
            type="button"
            onClick={() => {
              setForm(EMPTY_FORM);
              setSubmitted(false);
              setServerIssues(null);
            }}
          >
            Clear form
          </button>
        </div>
      </form>
    </div>
  );
}
