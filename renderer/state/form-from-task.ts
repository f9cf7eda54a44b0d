/** A task form filled from an existing task (duplicate and edit) or a schedule's task template. */
import { formatUses } from '../../shared/resources.ts';
import type { JsonValue, Task, TaskTemplate } from '../../shared/domain.ts';
import { formatDuration } from '../../shared/durations.ts';
import { EMPTY_FORM, hasOwnFields, type TaskForm } from './task-form.ts';

const text = (v: JsonValue | undefined) =>
  typeof v === 'string' ? v : v === undefined ? '' : JSON.stringify(v);
const num = (v: JsonValue | undefined) => (typeof v === 'number' ? String(v) : '');

/** A form filled from an existing task, for duplicate-and-edit. */
export function formFromTask(task: Task): TaskForm {
  return formFrom(task);
}

/** A form filled from a schedule's task template, for editing the schedule. */
export function formFromTemplate(template: TaskTemplate): TaskForm {
  return formFrom(template);
}

function formFrom(
  task: Pick<Task, 'kind' | 'group' | 'priority' | 'maxAttempts' | 'timeout' | 'payload'> & {
    name: string | null;
    uses?: Task['uses'];
  },
): TaskForm {
  const form: TaskForm = {
    ...EMPTY_FORM,
    kind: task.kind,
    name: task.name ?? '',
    group: task.group,
    priority: String(task.priority),
    maxAttempts: String(task.maxAttempts),
    timeout: task.timeout === null ? '' : formatDuration(task.timeout),
    uses: formatUses(task.uses ?? []),
  };
  const payload =
    task.payload && typeof task.payload === 'object' && !Array.isArray(task.payload)
      ? { ...task.payload }
      : null;
  if (!payload || !hasOwnFields(task.kind))
    return { ...form, payloadJson: JSON.stringify(task.payload, null, 2) };
  const take = (key: string) => {
    const v = payload[key];
    delete payload[key];
    return v;
  };
  switch (task.kind) {
    case 'shell': {
      form.command = text(take('command'));
      const args = take('args');
      form.args = Array.isArray(args) ? args.map((a) => text(a)).join('\n') : '';
      form.cwd = text(take('cwd'));
      break;
    }
    case 'http': {
      form.method = text(take('method')) || 'GET';
      form.url = text(take('url'));
      const headers = take('headers');
      form.headers =
        headers && typeof headers === 'object' && !Array.isArray(headers)
          ? Object.entries(headers)
              .map(([k, v]) => `${k}: ${text(v)}`)
              .join('\n')
          : '';
      form.body = text(take('body'));
      form.expectStatus = num(take('expectStatus'));
      break;
    }
    case 'sqlite-backup':
      form.source = text(take('source'));
      form.destDir = text(take('destDir'));
      form.keep = num(take('keep'));
      break;
    case 'sleep':
      form.ms = num(take('ms'));
      break;
  }
  form.extra = payload;
  return form;
}
