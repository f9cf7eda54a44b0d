/**
 * A plan's entries named as the crontab lines they are about, and the checks that need them:
 * the user edits a plan by the crontab lines it names, not by the place of an entry in the file,
 * so every error about an entry names its line the same way.
 */
import { ValidationError } from '../../../shared/errors.ts';
import type { CronLine } from './crontab.ts';
import type { PlanLine } from './plan.ts';

export type SourceLine = Pick<PlanLine, 'line' | 'text'>;

const QUOTE_MAX = 40;

/**
 * `crontab line 3 ("0 2 * * * pg_dump mydb | gzip > /backu…")`: the line as the user knows it,
 * in one line (a plan's text may hold a newline) and cut between characters, never in an emoji.
 */
export function crontabLine(l: SourceLine): string {
  const chars = [...l.text.trim()];
  const cut = chars.length > QUOTE_MAX ? `${chars.slice(0, QUOTE_MAX - 1).join('')}…` : chars.join('');
  return `crontab line ${l.line} ("${cut.replace(/\r?\n|\r/g, '\\n')}")`;
}

/** A plan line's crontab line, if the (unchecked) entry still says which one it is. */
export function sourceOf(entry: unknown): SourceLine | null {
  if (typeof entry !== 'object' || entry === null || !('line' in entry) || !('text' in entry)) return null;
  const { line, text } = entry;
  return typeof line === 'number' && Number.isInteger(line) && line >= 1 && typeof text === 'string'
    ? { line, text }
    : null;
}

/**
 * `err` with each issue under `prefix[i]` (a plan line in the JSON, or the schedule made from
 * one) named after its crontab line instead, keeping the field.
 */
export function byCrontabLine(
  err: ValidationError,
  prefix: string,
  lineAt: (i: number) => SourceLine | null,
): ValidationError {
  const head = new RegExp(`^${prefix.replace(/[.[\]]/g, '\\$&')}\\[(\\d+)\\](?:\\.(.+))?$`);
  return new ValidationError(
    err.issues.map((issue) => {
      const m = head.exec(issue.path);
      const l = m ? lineAt(Number(m[1])) : null;
      if (!m || !l) return issue;
      return { path: `${crontabLine(l)}${m[2] ? ` ${m[2]}` : ''}`, message: issue.message };
    }),
  );
}

const refuse = (path: string, message: string) => new ValidationError([{ path, message }]);

/**
 * Entries that cannot all be applied: two for one crontab line (which one wins?), or two
 * schedules of one name (the second would fail halfway through the apply).
 */
export function checkNoTwins(lines: readonly PlanLine[]): void {
  const byLine = new Map<number, PlanLine>();
  const byName = new Map<string, PlanLine>();
  for (const l of lines) {
    const sameLine = byLine.get(l.line);
    if (sameLine) throw refuse(crontabLine(l), 'is in the plan twice; keep one entry for it');
    byLine.set(l.line, l);
    if (l.action !== 'schedule') continue;
    const sameName = byName.get(l.name);
    if (sameName)
      throw refuse(
        `${crontabLine(sameName)} and ${crontabLine(l)}`,
        `both become schedule "${l.name}"; give one another name`,
      );
    byName.set(l.name, l);
  }
}

/** Each entry that changes a line names that line as it is, and a cron job at that. */
export function checkAgainstCrontab(plan: readonly PlanLine[], lines: readonly CronLine[]): void {
  for (const p of plan) {
    if (p.action === 'keep') continue;
    const l = lines[p.line - 1];
    if (!l || l.text !== p.text) throw refuse(crontabLine(p), 'does not match the crontab; write a new plan');
    const becomes = p.action === 'schedule' ? 'moved into a schedule' : 'wrapped';
    if (l.type !== 'job') throw refuse(crontabLine(p), `is not a cron job: only a job can be ${becomes}`);
  }
}
