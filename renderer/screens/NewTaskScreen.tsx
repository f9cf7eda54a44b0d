import { useMemo, useState, type FormEvent } from 'react';
import { ApiError } from '../../shared/api-client.ts';
import type { Task } from '../../shared/domain.ts';
import type { FieldIssue } from '../../shared/errors.ts';
import { FormSummary } from '../components/FormSummary.tsx';
import { TaskFields } from '../components/TaskFields.tsx';
import { useApi } from '../state/api-context.tsx';
import { useNotices } from '../state/notices.tsx';
import { useStats } from '../state/stats.tsx';
import { formFromTask } from '../state/form-from-task.ts';
import { buildSpec } from '../state/spec-from-form.ts';
import { EMPTY_FORM, placeIssues, visibleFields, type FieldName, type TaskForm } from '../state/task-form.ts';
import { useQuery } from '../state/use-query.ts';

export function NewTaskScreen(props: { from: Task | null; onCreated(taskId: number): void }) {
  const api = useApi();
  const { notify } = useNotices();
  const stats = useStats();
  const kinds = useQuery((a) => a.kinds({}), [], { live: false, refreshMs: 0 });
  const [form, setForm] = useState<TaskForm>(() => (props.from ? formFromTask(props.from) : EMPTY_FORM));
  const [submitted, setSubmitted] = useState(false);
  const [serverIssues, setServerIssues] = useState<FieldIssue[] | null>(null);
  const [serverError, setServerError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const local = useMemo(() => buildSpec(form), [form]);
  // Messages show once the user tried to submit (not while they are still typing the first time).
  const issues = submitted ? (serverIssues ?? local.issues) : [];
  const { byField, other } = placeIssues(issues, visibleFields(form.kind));

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

  const groupNames = stats.data?.groups.map((g) => g.name);

  return (
    <div className="screen new-task">
      <header className="screen-head">
        <h1>New task</h1>
        {props.from && <span className="muted">prefilled from an existing task</span>}
      </header>
      <form
        className="task-form"
        noValidate
        onSubmit={submit}
        aria-describedby={issues.length ? 'form-summary' : undefined}
      >
        <FormSummary
          count={issues.length}
          other={other}
          serverError={serverError}
          what="the task can be queued"
        />
        <TaskFields
          form={form}
          onChange={set}
          message={(f) => byField[f]}
          kinds={kinds.data}
          groups={groupNames}
          delay
        />
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
