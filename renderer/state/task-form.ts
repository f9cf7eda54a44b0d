/**
 * The task form's model (New task, and the task part of a schedule): its text fields, which of
 * them a kind shows, and which field an issue from the schema or the server belongs to (issues
 * land on fields by path). Text becomes a spec in spec-from-form.ts; a task becomes a form in
 * form-from-task.ts.
 */
import type { JsonValue } from '../../shared/domain.ts';
import type { FieldIssue } from '../../shared/errors.ts';

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
