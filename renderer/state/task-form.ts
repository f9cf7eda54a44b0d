/**
 * The task form's model (New task, and the task part of a schedule): text fields in, a task spec
 * or a schedule's task template out. Text becomes values here (durations via shared/durations,
 * numbers, header lines, JSON); the result is then checked with the shared schema
 * (taskSpecSchema, taskTemplateSchema), so the form says exactly what the server would. Payload
 * details of each kind are checked by the server's handler (its ApiError issues land on the same
 * fields by path).
 */
import { formatUses } from '../../shared/resources.ts';
import type { JsonValue, Task, TaskTemplate } from '../../shared/domain.ts';
import { durationProblem, formatDuration, parseDuration } from '../../shared/durations.ts';
import { ValidationError, type FieldIssue } from '../../shared/errors.ts';
import type { z } from 'zod';
import { parseInput, taskSpecSchema, taskTemplateSchema, type TaskSpec } from '../../shared/schemas.ts';

/** What a schedule's `task` field takes. */
export type TaskTemplateSpec = z.input<typeof taskTemplateSchema>;

export const FORM_KINDS = ['shell', 'http', 'sqlite-backup', 'sleep'] as const;
export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const;

export interface TaskForm {
  kind: string;
  name: string;
  group: string;
  priority: string;
  maxAttempts: string;
  timeout: string;
  delay: string;
  /** named resources as `--uses` takes them: `main-db, cpu:2` */
  uses: string;
  // shell
  command: string;
  /** one argument per line (so arguments may contain spaces) */
  args: string;
  cwd: string;
  // http
  method: string;
  url: string;
  /** `Name: value`, one per line */
  headers: string;
  body: string;
  expectStatus: string;
  // sqlite-backup
  source: string;
  destDir: string;
  keep: string;
  // sleep
  ms: string;
  /** the whole payload as JSON, for kinds without their own fields */
  payloadJson: string;
  /** payload keys a duplicated task had that the fields above do not show; sent unchanged */
  extra: Record<string, JsonValue>;
}

export type FieldName = Exclude<keyof TaskForm, 'extra'>;

export const EMPTY_FORM: TaskForm = {
  kind: 'shell',
  name: '',
  group: '',
  priority: '5',
  maxAttempts: '',
  timeout: '',
  delay: '',
  uses: '',
  command: '',
  args: '',
  cwd: '',
  method: 'GET',
  url: '',
  headers: '',
  body: '',
  expectStatus: '',
  source: '',
  destDir: '',
  keep: '',
  ms: '',
  payloadJson: '{}',
  extra: {},
};

/** Where each field's value goes in the spec: issues with this path (or below it) belong to it. */
export const FIELD_PATHS: Record<FieldName, string> = {
  kind: 'kind',
  name: 'name',
  group: 'group',
  priority: 'priority',
  maxAttempts: 'maxAttempts',
  timeout: 'timeout',
  delay: 'delay',
  uses: 'uses',
  command: 'payload.command',
  args: 'payload.args',
  cwd: 'payload.cwd',
  method: 'payload.method',
  url: 'payload.url',
  headers: 'payload.headers',
  body: 'payload.body',
  expectStatus: 'payload.expectStatus',
  source: 'payload.source',
  destDir: 'payload.destDir',
  keep: 'payload.keep',
  ms: 'payload.ms',
  payloadJson: 'payload',
};

export function hasOwnFields(kind: string): boolean {
  return (FORM_KINDS as readonly string[]).includes(kind);
}

/** The fields shown for `kind` (issues for hidden fields go to the summary); a template has no delay. */
export function visibleFields(kind: string, options: { delay?: boolean } = {}): FieldName[] {
  const common: FieldName[] = ['kind', 'name', 'group', 'priority', 'maxAttempts', 'timeout', 'uses'];
  if (options.delay ?? true) common.push('delay');
  const own: Record<string, FieldName[]> = {
    shell: ['command', 'args', 'cwd'],
    http: ['method', 'url', 'headers', 'body', 'expectStatus'],
    'sqlite-backup': ['source', 'destDir', 'keep'],
    sleep: ['ms'],
  };
  return [...common, ...(own[kind] ?? ['payloadJson'])];
}

/** A number where the text is one; otherwise the text itself, so the schema names the problem. */
function numberish(text: string): number | string | undefined {
  const t = text.trim();
  if (t === '') return undefined;
  return /^-?\d+(\.\d+)?$/.test(t) ? Number(t) : t;
}

function lines(text: string): string[] {
  return text.split('\n').filter((l) => l.trim() !== '');
}

function payloadOf(form: TaskForm, issues: FieldIssue[]): JsonValue {
  const p: Record<string, JsonValue> = { ...form.extra };
  const put = (key: string, value: JsonValue | undefined) => {
    if (value !== undefined && value !== '') p[key] = value;
  };
  switch (form.kind) {
    case 'shell':
      p.command = form.command.trim();
      put('args', form.args.trim() === '' ? undefined : lines(form.args));
      put('cwd', form.cwd.trim());
      return p;
    case 'http': {
      put('method', form.method);
      p.url = form.url.trim();
      const headers: Record<string, string> = {};
      lines(form.headers).forEach((line, i) => {
        const at = line.indexOf(':');
        if (at <= 0) {
          issues.push({ path: 'payload.headers', message: `line ${i + 1} is not “Name: value”` });
          return;
        }
        headers[line.slice(0, at).trim()] = line.slice(at + 1).trim();
      });
      if (Object.keys(headers).length) p.headers = headers;
      if (form.body !== '') p.body = form.body;
      put('expectStatus', numberish(form.expectStatus));
      return p;
    }
    case 'sqlite-backup':
      p.source = form.source.trim();
      p.destDir = form.destDir.trim();
      put('keep', numberish(form.keep));
      return p;
    case 'sleep':
      put('ms', numberish(form.ms) ?? '');
      if (!('ms' in p)) issues.push({ path: 'payload.ms', message: 'must be a number of milliseconds' });
      return p;
    default:
      try {
        return JSON.parse(form.payloadJson.trim() || '{}') as JsonValue;
      } catch (err) {
        issues.push({ path: 'payload', message: `is not valid JSON (${(err as Error).message})` });
        return {};
      }
  }
}

function durationField(text: string, path: string, issues: FieldIssue[]): number | undefined {
  if (text.trim() === '') return undefined;
  const ms = parseDuration(text);
  if (ms === null) {
    issues.push({ path, message: durationProblem(text) });
    return undefined;
  }
  return ms;
}

/** The fields a task spec and a schedule's task template share: kind, payload, group, limits. */
function commonFields(form: TaskForm, issues: FieldIssue[]): Record<string, unknown> {
  const spec: Record<string, unknown> = { kind: form.kind.trim(), payload: payloadOf(form, issues) };
  if (form.group.trim()) spec.group = form.group.trim();
  const put = (key: string, value: unknown) => {
    if (value !== undefined) spec[key] = value;
  };
  put('priority', numberish(form.priority));
  put('maxAttempts', numberish(form.maxAttempts));
  put('timeoutMs', durationField(form.timeout, 'timeout', issues));
  // The text as typed: the shared schema parses it and names its problem.
  if (form.uses.trim()) spec.uses = form.uses;
  return spec;
}

/** Adds the schema's issues to those the text already had (one per path: the text's come first). */
function checkWith(schema: z.ZodType, value: unknown, issues: FieldIssue[]): void {
  try {
    parseInput(schema, value);
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    // The form sends durations as timeoutMs/delayMs; their issues belong to the text fields.
    for (const { path, message } of err.issues) {
      const field = path.replace(/^(timeout|delay)Ms$/, '$1');
      if (!issues.some((i) => i.path === field)) issues.push({ path: field, message });
    }
  }
}

/** The spec the form describes, and every problem the shared schema (or the text) has with it. */
export function buildSpec(form: TaskForm): { spec: TaskSpec; issues: FieldIssue[] } {
  const issues: FieldIssue[] = [];
  const { kind, payload, ...rest } = commonFields(form, issues);
  const spec: Record<string, unknown> = { kind, payload };
  const name =
    form.name.trim() ||
    (form.kind === 'shell' && form.command.trim()
      ? [form.command.trim(), ...lines(form.args)].join(' ')
      : '');
  if (name) spec.name = name.slice(0, 200);
  Object.assign(spec, rest);
  const delay = durationField(form.delay, 'delay', issues);
  if (delay !== undefined) spec.delayMs = delay;
  checkWith(taskSpecSchema, spec, issues);
  return { spec: spec as TaskSpec, issues };
}

/**
 * The task a schedule enqueues, from the same fields (no delay: the schedule gives the timing).
 * An empty name stays empty, so each run is named after the schedule.
 */
export function buildTemplate(form: TaskForm): { template: TaskTemplateSpec; issues: FieldIssue[] } {
  const issues: FieldIssue[] = [];
  const { kind, payload, ...rest } = commonFields(form, issues);
  const template: Record<string, unknown> = { kind, payload };
  if (form.name.trim()) template.name = form.name.trim();
  Object.assign(template, rest);
  checkWith(taskTemplateSchema, template, issues);
  return { template: template as TaskTemplateSpec, issues };
}

/** Which field an issue belongs to: the one whose path is the issue's or the nearest above it. */
export function fieldOf(path: string, fields: readonly FieldName[]): FieldName | null {
  let best: FieldName | null = null;
  for (const f of fields) {
    const fp = FIELD_PATHS[f];
    const under = path === fp || path.startsWith(`${fp}.`) || path.startsWith(`${fp}[`);
    if (under && (!best || fp.length > FIELD_PATHS[best].length)) best = f;
  }
  return best;
}

/**
 * Issues sorted onto the fields shown; the rest go to the form's summary. An issue below a
 * field's path (one header, one argument) keeps that part in its message.
 */
export function placeIssues(
  issues: readonly FieldIssue[],
  fields: readonly FieldName[],
): { byField: Partial<Record<FieldName, string>>; other: FieldIssue[] } {
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
