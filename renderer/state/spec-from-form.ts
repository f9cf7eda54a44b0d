/**
 * Text fields in, a task spec or a schedule's task template out. Text becomes values here
 * (durations via shared/durations, numbers, header lines, JSON); the result is then checked with
 * the shared schema (taskSpecSchema, taskTemplateSchema), so the form says exactly what the server
 * would. Payload details of each kind are checked by the server's handler (its ApiError issues
 * land on the same fields by path).
 */
import type { JsonValue } from '../../shared/domain.ts';
import { durationProblem, parseDuration } from '../../shared/durations.ts';
import { ValidationError, type FieldIssue } from '../../shared/errors.ts';
import type { z } from 'zod';
import { parseInput, taskSpecSchema, taskTemplateSchema, type TaskSpec } from '../../shared/schemas.ts';
import type { TaskForm } from './task-form.ts';

/** What a schedule's `task` field takes. */
export type TaskTemplateSpec = z.input<typeof taskTemplateSchema>;

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
