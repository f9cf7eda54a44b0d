/**
 * The crontab a plan makes, line for line (a wrapped line keeps cron's timing and calls
 * `semaforo run`; a moved one is commented out; everything else stays byte for byte), the diff
 * that shows it, and the schedules a plan creates. Pure.
 */
import { shellQuote } from '../install/launcher.ts';
import { envBefore, type CronLine } from './crontab.ts';
import type { Plan, PlanLine } from './plan.ts';
import { crontabLine } from './plan-lines.ts';

export const MOVED_MARK = '# moved to a semaforo schedule by `semaforo adopt`:';

/** Shell syntax that must stay inside the wrapped command, not apply to `semaforo run` itself. */
const SHELL_SYNTAX = /[|&;<>()$`\\"'*?[\]#~=%{}!\n]/;

/** The command line `semaforo run` is given: the words themselves, or the shell running them. */
export function wrappedCommand(command: string, shell: string): string {
  const trimmed = command.trim();
  return SHELL_SYNTAX.test(trimmed) ? `${shell} -c ${cronEscape(shellQuote(trimmed))}` : trimmed;
}

const plainOrQuoted = (word: string) => (/^[A-Za-z0-9._/~:@=?-]+$/.test(word) ? word : shellQuote(word));

/** cron reads `%` in a command as a line break: written back, it is escaped again. */
function cronEscape(text: string): string {
  return text.replaceAll('%', '\\%');
}

function wrapLine(l: Extract<CronLine, { type: 'job' }>, p: PlanLine, plan: Plan, shell: string): string {
  const name = /^[A-Za-z0-9._:-]+$/.test(p.name) ? p.name : shellQuote(p.name);
  const launcher = /^[A-Za-z0-9._/~-]+$/.test(plan.launcher) ? plan.launcher : shellQuote(plan.launcher);
  // A queue named when adopting is named on each line, or cron's runs would go to the default one.
  const db = plan.db === undefined ? '' : ` --db ${cronEscape(plainOrQuoted(plan.db))}`;
  return `${l.head}${launcher}${db} run -q --group ${p.group} --name ${cronEscape(name)} -- ${wrappedCommand(l.command, shell)}`;
}

/** The new crontab text; lines the plan does not name, or keeps, are unchanged. */
export function rewrite(text: string, lines: readonly CronLine[], plan: Plan): string {
  const byLine = new Map(plan.lines.map((p) => [p.line, p]));
  const out = lines.map((l, i) => {
    const p = byLine.get(i + 1);
    if (!p || l.type !== 'job' || p.action === 'keep') return l.text;
    if (p.action === 'schedule') return `${MOVED_MARK} ${p.name}: ${l.text}`;
    return wrapLine(l, p, plan, envBefore(lines, i).get('SHELL') ?? '/bin/sh');
  });
  return out.join('\n') + (text.endsWith('\n') || text === '' ? '\n' : '');
}

/** The changed lines, as `-`/`+` pairs with their line numbers. */
export function diff(before: string, after: string): string {
  const a = before.split('\n');
  const b = after.split('\n');
  const out: string[] = [];
  for (let i = 0; i < Math.max(a.length, b.length); i++)
    if (a[i] !== b[i]) {
      out.push(`@@ line ${i + 1}`);
      if (a[i] !== undefined) out.push(`-${a[i]}`);
      if (b[i] !== undefined) out.push(`+${b[i]}`);
    }
  return out.join('\n');
}

/** What a moved job becomes: a schedule running its command as cron would (shell, env, HOME). */
export function scheduleSpecs(
  lines: readonly CronLine[],
  plan: Plan,
  home: string,
): Record<string, unknown>[] {
  return plan.lines
    .filter((p) => p.action === 'schedule')
    .map((p) => {
      const l = lines[p.line - 1]!;
      // checkAgainstCrontab has refused such a plan; a caller that skipped it learns where
      if (l.type !== 'job') throw new Error(`${crontabLine(p)}: is not a cron job`);
      const env = envBefore(lines, p.line - 1);
      const shell = env.get('SHELL') ?? '/bin/sh';
      const jobEnv: Record<string, string> = { PATH: '/usr/bin:/bin' };
      for (const [k, v] of env) if (!['SHELL', 'MAILTO', 'CRON_TZ'].includes(k)) jobEnv[k] = v;
      return {
        name: p.name,
        cron: p.cron,
        timezone: p.timezone,
        task: {
          kind: 'shell',
          group: p.group,
          payload: { command: shell, args: ['-c', l.command], cwd: env.get('HOME') ?? home, env: jobEnv },
        },
      };
    });
}
