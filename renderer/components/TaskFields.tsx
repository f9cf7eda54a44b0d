import type { KindInfo } from '../../shared/domain.ts';
import { LIMITS } from '../../shared/limits.ts';
import { FORM_KINDS, type FieldName, type TaskForm } from '../state/task-form.ts';
import { groupHint } from '../state/group-hint.ts';
import { describedBy, Field } from './Field.tsx';
import { KindFields } from './KindFields.tsx';

/**
 * The task part of a form: what to run (the kind and its own fields) and how (name, group,
 * limits). New task and the schedule form both use it; a schedule gives the timing itself, so it
 * leaves out the delay.
 */
export function TaskFields(props: {
  form: TaskForm;
  onChange(name: FieldName, value: string): void;
  message(f: FieldName): string | undefined;
  kinds: readonly KindInfo[] | undefined;
  /** the queue's groups; undefined while not loaded */
  groups: readonly string[] | undefined;
  /** show the Delay field (New task) */
  delay?: boolean;
  nameHint?: string;
}) {
  const { form, onChange, message: msg, kinds, groups, delay = false } = props;
  const nameHint = props.nameHint ?? 'shown in lists; defaults to the command or the kind';
  const group = groupHint(form.group, groups);
  const kindNames = [...new Set([...FORM_KINDS, ...(kinds ?? []).map((k) => k.kind)])];
  const input = (f: FieldName, hint?: string) => ({
    ...describedBy(`task-${f}`, msg(f), hint),
    value: form[f],
    onChange: (e: { target: { value: string } }) => onChange(f, e.target.value),
  });
  return (
    <>
      <fieldset>
        <legend>What to run</legend>
        <Field id="task-kind" label="Kind" message={msg('kind')}>
          <select {...input('kind')}>
            {kindNames.map((k) => (
              <option key={k} value={k}>
                {k}
                {kinds?.find((d) => d.kind === k)?.source === 'user' ? ' (yours)' : ''}
              </option>
            ))}
          </select>
        </Field>
        <KindFields form={form} message={msg} input={input} />
      </fieldset>
      <fieldset>
        <legend>How to run it</legend>
        <Field id="task-name" label="Name" hint={nameHint} message={msg('name')}>
          <input {...input('name', nameHint)} maxLength={LIMITS.nameLength + 1} />
        </Field>
        <Field id="task-group" label="Group" hint={group.text} warn={group.isNew} message={msg('group')}>
          <input {...input('group', group.text)} list="known-groups" placeholder="default" />
        </Field>
        <datalist id="known-groups">
          {(groups ?? []).map((g) => (
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
          id="task-uses"
          label="Uses"
          hint="named resources it holds while it runs, e.g. main-db, cpu:2; empty: none"
          message={msg('uses')}
        >
          <input {...input('uses', 'e.g. main-db, cpu:2; empty: none')} placeholder="none" />
        </Field>
        {delay && (
          <Field
            id="task-delay"
            label="Delay"
            hint="start no sooner than this from now, e.g. 10m"
            message={msg('delay')}
          >
            <input {...input('delay', 'start no sooner than this from now, e.g. 10m')} placeholder="0" />
          </Field>
        )}
      </fieldset>
    </>
  );
}
