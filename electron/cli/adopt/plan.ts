/**
 * The adoption plan: per cron job, wrap it (cron keeps the timing, the queue the limits), move
 * it into a Semaforo schedule, or keep it as it is; plus the groups to create. Written as JSON
 * for the user to edit (`adopt --plan FILE`) and read back, checked, for `--apply --plan FILE`.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { ValidationError } from '../../../shared/errors.ts';
import { NAME_RE, parseInput } from '../../../shared/schemas.ts';
import { envBefore, type CronLine } from './crontab.ts';
import { guessGroup, jobName } from './groups.ts';
import { byCrontabLine, checkNoTwins, crontabLine, sourceOf } from './plan-lines.ts';

export type Action = 'wrap' | 'schedule' | 'keep';

export interface PlanLine {
  /** 1-based line number in the crontab */
  line: number;
  /** the line's text, to check the crontab did not change under the plan */
  text: string;
  action: Action;
  group: string;
  name: string;
  /** for `schedule`: cron's timing and the zone it is read in */
  cron?: string;
  timezone?: string;
  /** why a line is kept, or what to know about it */
  note?: string;
}

export interface PlanGroup {
  name: string;
  concurrency: number;
  why: string;
}

export interface Plan {
  version: 1;
  source: { kind: 'crontab' } | { kind: 'file'; path: string; userField: boolean };
  /** sha256 of the crontab text the plan was made from */
  sha256: string;
  /** the `semaforo` a wrapped line calls (cron runs with PATH=/usr/bin:/bin) */
  launcher: string;
  /** the queue a wrapped line names (`--db`), when it is not the default one; absent: default */
  db?: string;
  groups: PlanGroup[];
  lines: PlanLine[];
  /** environment lines and what becomes of them */
  notes: string[];
}

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const CRON_MACROS: Record<string, string> = { '@midnight': '@daily', '@annually': '@yearly' };

export interface PlanInput {
  text: string;
  lines: readonly CronLine[];
  source: Plan['source'];
  launcher: string;
  /** the queue adopted into, when named (--db, SEMAFORO_DB): cron's lines must name it too */
  db?: string;
  intoSchedules: boolean;
  /** the user adopting: lines of /etc/cron.d for another user stay in cron */
  user: string;
  localZone: string;
}

export function makePlan(input: PlanInput): Plan {
  const names = new Set<string>();
  const groups = new Map<string, PlanGroup>();
  const lines: PlanLine[] = [];
  const notes: string[] = [];
  input.lines.forEach((l, i) => {
    const line = i + 1;
    if (l.type === 'env') {
      notes.push(envNote(l.name, l.value, input.intoSchedules, line));
      return;
    }
    const keep = (note: string) =>
      lines.push({ line, text: l.text, action: 'keep', group: 'default', name: '', note });
    if (l.type === 'unknown') return void keep(`not understood: ${l.why}`);
    if (l.type !== 'job') return;
    if (/\bsemaforo\b/.test(l.command)) return void keep('calls semaforo already');
    const guess = guessGroup(l.command);
    if (guess && !groups.has(guess.group))
      groups.set(guess.group, { name: guess.group, concurrency: guess.concurrency, why: guess.why });
    const entry: PlanLine = {
      line,
      text: l.text,
      action: 'wrap',
      group: guess?.group ?? 'default',
      name: jobName(l.command, names),
    };
    if (input.intoSchedules) {
      const why = scheduleRefusal(l, input.user);
      if (why) entry.note = `kept in cron, wrapped: ${why}`;
      else {
        entry.action = 'schedule';
        entry.cron = CRON_MACROS[l.timing.toLowerCase()] ?? l.timing;
        entry.timezone = envBefore(input.lines, i).get('CRON_TZ') ?? input.localZone;
      }
    }
    lines.push(entry);
  });
  return {
    version: 1,
    source: input.source,
    sha256: sha256(input.text),
    launcher: input.launcher,
    ...(input.db !== undefined && { db: input.db }),
    groups: [...groups.values()],
    lines,
    notes,
  };
}

function scheduleRefusal(l: Extract<CronLine, { type: 'job' }>, user: string): string | null {
  if (l.timing.toLowerCase() === '@reboot') return 'a schedule has no "at boot"';
  if (l.user !== null && l.user !== user)
    return `cron runs it as ${l.user}; a schedule runs as the dispatcher's user`;
  return null;
}

function envNote(name: string, value: string, intoSchedules: boolean, line: number): string {
  const where = `line ${line}: ${name}=${value}:`;
  if (name === 'MAILTO')
    return `${where} cron mails a job's output; a schedule's failures go to notifications and the webhook (semaforo settings --webhook URL)`;
  if (name === 'CRON_TZ')
    return `${where} the time zone of the jobs below it${intoSchedules ? ' (their schedules use it)' : ''}`;
  if (!intoSchedules) return `${where} stays in the crontab for the wrapped lines below it`;
  if (name === 'SHELL') return `${where} the shell that runs each moved job's command`;
  return `${where} set in the environment of each moved job below it`;
}

const planSchema = z.strictObject({
  version: z.literal(1),
  source: z.union([
    z.strictObject({ kind: z.literal('crontab') }),
    z.strictObject({ kind: z.literal('file'), path: z.string().min(1), userField: z.boolean() }),
  ]),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  launcher: z.string().min(1),
  db: z.string().min(1).optional(),
  groups: z.array(
    z.strictObject({
      name: z.string().regex(NAME_RE),
      concurrency: z.number().int().min(1).max(1000),
      why: z.string(),
    }),
  ),
  lines: z.array(
    z.strictObject({
      line: z.number().int().min(1),
      text: z.string(),
      action: z.enum(['wrap', 'schedule', 'keep']),
      group: z.string().regex(NAME_RE, { error: 'must be a group name (letters, digits, . _ : -)' }),
      name: z.string().max(200),
      cron: z.string().min(1).optional(),
      timezone: z.string().min(1).optional(),
      note: z.string().optional(),
    }),
  ),
  notes: z.array(z.string()),
});

/** A plan read back from its file: the shape checked, fields named in the error. */
export function parsePlan(json: unknown): Plan {
  let plan: Plan;
  try {
    plan = parseInput(planSchema, json, 'plan') as Plan;
  } catch (err) {
    const raw = typeof json === 'object' && json !== null && 'lines' in json ? json.lines : null;
    const at = (i: number): unknown => (Array.isArray(raw) ? raw[i] : null);
    throw err instanceof ValidationError ? byCrontabLine(err, 'plan.lines', (i) => sourceOf(at(i))) : err;
  }
  for (const l of plan.lines)
    if (l.action === 'schedule' && (l.cron === undefined || !NAME_RE.test(l.name)))
      throw new ValidationError([
        {
          path: crontabLine(l),
          message: 'a schedule needs "cron" and a "name" of letters, digits, . _ : -',
        },
      ]);
  checkNoTwins(plan.lines);
  return plan;
}
