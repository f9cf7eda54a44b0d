import { useMemo, useState, type FormEvent } from 'react';
import { ApiError } from '../../shared/api-client.ts';
import { MISSED_POLICIES, OVERLAP_POLICIES, type Schedule } from '../../shared/domain.ts';
import type { FieldIssue } from '../../shared/errors.ts';
import { localTimeZone } from '../../shared/schedule-times.ts';
import { EmptyState } from '../components/EmptyState.tsx';
import { ErrorState } from '../components/ErrorState.tsx';
import { describedBy, Field } from '../components/Field.tsx';
import { FormSummary } from '../components/FormSummary.tsx';
import { LoadingState } from '../components/LoadingState.tsx';
import { SchedulePreview } from '../components/SchedulePreview.tsx';
import { TaskFields } from '../components/TaskFields.tsx';
import { useApi } from '../state/api-context.tsx';
import { relativeTime } from '../state/format.ts';
import { useNotices } from '../state/notices.tsx';
import {
  buildScheduleSpec,
  EMPTY_SCHEDULE_FORM,
  MISSED_TEXT,
  OVERLAP_TEXT,
  placeScheduleIssues,
  recurrenceOf,
  scheduleFormFrom,
  type RecurrenceMode,
  type ScheduleForm,
} from '../state/schedule-form.ts';
import { useStats } from '../state/stats.tsx';
import type { FieldName } from '../state/task-form.ts';
import { useQuery } from '../state/use-query.ts';
import { useSchedulePreview } from '../state/use-schedule-preview.ts';

/** Every zone this browser knows, for the time zone field's suggestions. */
const TIME_ZONES: readonly string[] = (() => {
  try {
    return Intl.supportedValuesOf('timeZone');
  } catch {
    return [];
  }
})();

/** New schedule (`name` null) or edit the named one, loaded first. */
/** The dead-man's switch: three durations, each empty for no alarm. */
const ALARM_FIELDS = [
  {
    key: 'grace',
    id: 'schedule-grace',
    label: 'Alarm if not started within',
    hint: 'after its due time; empty: no alarm',
    placeholder: '10m',
  },
  {
    key: 'maxRuntime',
    id: 'schedule-max-runtime',
    label: 'Alarm if running longer than',
    hint: 'e.g. 1h; empty: no alarm',
    placeholder: '1h',
  },
  {
    key: 'minRuntime',
    id: 'schedule-min-runtime',
    label: 'Alarm if done faster than',
    hint: 'a success this quick probably did nothing; empty: no alarm',
    placeholder: '5s',
  },
] as const;

export function ScheduleFormScreen(props: {
  name: string | null;
  onSaved(s: Schedule): void;
  onCancel(): void;
}) {
  const { name, onSaved, onCancel } = props;
  const q = useQuery((api) => api.getSchedule({ name: name ?? '' }), [name], {
    live: false,
    refreshMs: 0,
    enabled: name !== null,
  });
  let body;
  if (name === null) body = <ScheduleEditor initial={null} onSaved={onSaved} onCancel={onCancel} />;
  else if (q.loading) body = <LoadingState label={`Loading schedule ${name}…`} />;
  else if (!q.data)
    body =
      q.error instanceof ApiError && q.error.status === 404 ? (
        <EmptyState symbol="⊘" title={`Schedule ${name} does not exist`}>
          It was deleted or renamed.{' '}
          <button type="button" className="link" onClick={onCancel}>
            Back to schedules
          </button>
        </EmptyState>
      ) : (
        <ErrorState error={q.error!} what={`schedule ${name}`} onRetry={q.reload} />
      );
  else body = <ScheduleEditor key={q.data.id} initial={q.data} onSaved={onSaved} onCancel={onCancel} />;
  return (
    <div className="screen schedule-form-screen">
      <header className="screen-head">
        <h1>{name === null ? 'New schedule' : `Edit schedule ${name}`}</h1>
      </header>
      {body}
    </div>
  );
}

function ScheduleEditor(props: { initial: Schedule | null; onSaved(s: Schedule): void; onCancel(): void }) {
  const { initial, onSaved, onCancel } = props;
  const api = useApi();
  const { notify } = useNotices();
  const stats = useStats();
  const kinds = useQuery((a) => a.kinds({}), [], { live: false, refreshMs: 0 });
  const [form, setForm] = useState<ScheduleForm>(() =>
    initial ? scheduleFormFrom(initial) : EMPTY_SCHEDULE_FORM,
  );
  const [submitted, setSubmitted] = useState(false);
  const [serverIssues, setServerIssues] = useState<FieldIssue[] | null>(null);
  const [serverError, setServerError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const local = useMemo(() => buildScheduleSpec(form), [form]);
  const rec = useMemo(() => recurrenceOf(form), [form]);
  const { preview, pending } = useSchedulePreview(rec);
  // Messages show once the user tried to save; the preview says what is wrong with the recurrence at once.
  const issues = submitted ? (serverIssues ?? local.issues) : [];
  const placed = placeScheduleIssues(issues, form.task.kind);
  const msg = placed.schedule;

  const edited = () => {
    setServerIssues(null);
    setServerError(null);
  };
  const set = <K extends keyof ScheduleForm>(key: K, value: ScheduleForm[K]) => {
    setForm((f) => ({ ...f, [key]: value }));
    edited();
  };
  const setTask = (f: FieldName, value: string) => {
    setForm((s) => ({ ...s, task: { ...s.task, [f]: value } }));
    edited();
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSubmitted(true);
    edited();
    if (local.issues.length > 0) return;
    setBusy(true);
    try {
      const s = initial
        ? await api.updateSchedule({ name: initial.name, schedule: local.spec })
        : await api.createSchedule(local.spec);
      const next =
        s.enabled && s.nextDueAt !== null ? `: next run ${relativeTime(s.nextDueAt, Date.now())}` : '';
      notify(`Schedule ${s.name} ${initial ? 'saved' : 'created'}${s.enabled ? next : ', paused'}`, 'green');
      onSaved(s);
    } catch (err) {
      if (err instanceof ApiError && err.info.issues?.length) setServerIssues(err.info.issues);
      else if (err instanceof ApiError && err.info.name === 'ConflictError')
        setServerIssues([{ path: 'name', message: err.message }]);
      else setServerError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const groupNames = stats.data?.groups.map((g) => g.name);
  const text = (
    id: string,
    key: 'name' | 'cron' | 'timezone' | 'every' | 'grace' | 'maxRuntime' | 'minRuntime',
    message: string | undefined,
    hint?: string,
  ) => ({
    ...describedBy(id, message, hint),
    value: form[key],
    onChange: (e: { target: { value: string } }) => set(key, e.target.value),
  });
  const nameHint = 'letters, digits and . _ : - (up to 64)';
  const cronHint = 'minute hour day month weekday, e.g. 0 3 * * * or */15 9-17 * * 1-5';
  const zoneHint = `empty: this machine’s zone (${localTimeZone()})`;
  const everyHint = 'e.g. 30s, 5m, 2h, 1d';

  return (
    <form
      className="task-form schedule-form"
      noValidate
      onSubmit={submit}
      aria-label={initial ? `Edit schedule ${initial.name}` : 'New schedule'}
      aria-describedby={issues.length ? 'form-summary' : undefined}
    >
      <FormSummary
        count={issues.length}
        other={placed.other}
        serverError={serverError}
        what="the schedule can be saved"
      />
      {initial?.problem !== undefined && (
        <p className="banner tone-red" data-testid="schedule-problem">
          This schedule is damaged: {initial.problem}. Saving replaces it whole, which repairs it.
        </p>
      )}
      <fieldset>
        <legend>When</legend>
        <Field id="schedule-name" label="Schedule name" hint={nameHint} message={msg.name}>
          <input {...text('schedule-name', 'name', msg.name, nameHint)} placeholder="nightly-backup" />
        </Field>
        <div className="field rest-of-row" role="radiogroup" aria-labelledby="schedule-mode-label">
          <span className="field-label" id="schedule-mode-label">
            Repeats
          </span>
          <div className="segmented">
            {(['cron', 'interval'] as RecurrenceMode[]).map((mode) => (
              <label key={mode} className={form.mode === mode ? 'on' : undefined}>
                <input
                  type="radio"
                  name="schedule-mode"
                  value={mode}
                  checked={form.mode === mode}
                  onChange={() => set('mode', mode)}
                />
                {mode === 'cron' ? 'Cron' : 'Interval'}
              </label>
            ))}
          </div>
        </div>
        {form.mode === 'cron' ? (
          <>
            <Field id="schedule-cron" label="Cron expression" hint={cronHint} message={msg.cron}>
              <input
                {...text('schedule-cron', 'cron', msg.cron, cronHint)}
                className="mono"
                spellCheck={false}
                autoComplete="off"
                placeholder="0 3 * * *"
              />
            </Field>
            <Field id="schedule-timezone" label="Time zone" hint={zoneHint} message={msg.timezone}>
              <input
                {...text('schedule-timezone', 'timezone', msg.timezone, zoneHint)}
                list="time-zones"
                autoComplete="off"
                placeholder="local"
              />
            </Field>
            <datalist id="time-zones">
              {TIME_ZONES.map((z) => (
                <option key={z} value={z} />
              ))}
            </datalist>
          </>
        ) : (
          <Field id="schedule-every" label="Every" hint={everyHint} message={msg.every}>
            <input
              {...text('schedule-every', 'every', msg.every, everyHint)}
              autoComplete="off"
              placeholder="15m"
            />
          </Field>
        )}
        <SchedulePreview preview={preview} pending={pending} />
        <Field
          id="schedule-missed"
          label="Missed runs"
          hint={MISSED_TEXT[form.missed].explain}
          message={msg.missed}
        >
          <select
            {...describedBy('schedule-missed', msg.missed, MISSED_TEXT[form.missed].explain)}
            value={form.missed}
            onChange={(e) => set('missed', e.target.value as ScheduleForm['missed'])}
          >
            {MISSED_POLICIES.map((p) => (
              <option key={p} value={p}>
                {MISSED_TEXT[p].label}
              </option>
            ))}
          </select>
        </Field>
        <Field
          id="schedule-overlap"
          label="Overlapping runs"
          hint={OVERLAP_TEXT[form.overlap].explain}
          message={msg.overlap}
        >
          <select
            {...describedBy('schedule-overlap', msg.overlap, OVERLAP_TEXT[form.overlap].explain)}
            value={form.overlap}
            onChange={(e) => set('overlap', e.target.value as ScheduleForm['overlap'])}
          >
            {OVERLAP_POLICIES.map((p) => (
              <option key={p} value={p}>
                {OVERLAP_TEXT[p].label}
              </option>
            ))}
          </select>
        </Field>
        {ALARM_FIELDS.map((f) => (
          <Field key={f.key} id={f.id} label={f.label} hint={f.hint} message={msg[f.key]}>
            <input
              {...text(f.id, f.key, msg[f.key], f.hint)}
              autoComplete="off"
              placeholder={f.placeholder}
            />
          </Field>
        ))}
        <div className="field">
          <span className="field-label" aria-hidden="true">
            State
          </span>
          <label className="checkbox-field">
            <input
              type="checkbox"
              checked={form.enabled}
              onChange={(e) => set('enabled', e.target.checked)}
            />
            Active (unticked: saved paused)
          </label>
        </div>
      </fieldset>
      <TaskFields
        form={form.task}
        onChange={setTask}
        message={(f) => placed.task[f]}
        kinds={kinds.data}
        groups={groupNames}
        nameHint="each run’s name in lists; default: the schedule’s name"
      />
      <div className="form-actions">
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Saving…' : initial ? 'Save schedule' : 'Create schedule'}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
