/**
 * A crontab, read line by line as cron reads it (Debian's Vixie cron, the format of `crontab -l`,
 * /etc/crontab and /etc/cron.d with their user field). Pure: text in, lines out, each keeping its
 * exact text so that a rewrite changes only the lines it means to.
 */

export type CronLine =
  | { type: 'blank' | 'comment'; text: string }
  | { type: 'env'; text: string; name: string; value: string }
  | {
      type: 'job';
      text: string;
      /** the five fields joined by one space, or the @macro */
      timing: string;
      user: string | null;
      /** the command as cron hands it to the shell (`\%` already read as `%`) */
      command: string;
      /** the line's text before the command (timing, user, their spacing) */
      head: string;
    }
  | { type: 'unknown'; text: string; why: string };

const MACROS = ['@reboot', '@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'];
const NAMES = 'jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|sun|mon|tue|wed|thu|fri|sat';
const FIELD = new RegExp(`^(\\*|\\d+|${NAMES})([-,/](\\*|\\d+|${NAMES}))*$`, 'i');
/** minute, hour, day of month, month, day of week (0 and 7 are Sunday) */
const RANGES: readonly (readonly [number, number])[] = [
  [0, 59],
  [0, 23],
  [1, 31],
  [1, 12],
  [0, 7],
];
const inRange = (field: string, i: number) =>
  (field.match(/\d+/g) ?? []).every((n, k, all) => {
    // A step (`*/15`) is a count, not a value of the field.
    const isStep = field.includes(`/${n}`) && k === all.length - 1 && field.endsWith(`/${n}`);
    return isStep ? Number(n) >= 1 : Number(n) >= RANGES[i]![0] && Number(n) <= RANGES[i]![1];
  });
const ENV = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/;

/** Splits off `count` whitespace-separated words; the rest keeps its own text. */
function words(text: string, count: number): { words: string[]; head: string; rest: string } | null {
  const re = /\S+/g;
  const out: string[] = [];
  let end = 0;
  while (out.length < count) {
    const m = re.exec(text);
    if (!m) return null;
    out.push(m[0]);
    end = m.index + m[0].length;
  }
  const rest = text.slice(end);
  const lead = /^\s*/.exec(rest)![0];
  return { words: out, head: text.slice(0, end + lead.length), rest: rest.slice(lead.length) };
}

/** cron's own reading of `%`: unescaped, it ends the command (the rest is its stdin). */
function unescapePercent(command: string): string | null {
  let out = '';
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (c === '\\' && command[i + 1] === '%') {
      out += '%';
      i++;
    } else if (c === '%') return null;
    else out += c;
  }
  return out;
}

function unquote(value: string): string {
  const v = value.trim();
  const q = v[0];
  return (q === '"' || q === "'") && v.length >= 2 && v.endsWith(q) ? v.slice(1, -1) : v;
}

export function parseLine(text: string, userField: boolean): CronLine {
  const trimmed = text.trim();
  if (trimmed === '') return { type: 'blank', text };
  if (trimmed.startsWith('#')) return { type: 'comment', text };
  const env = ENV.exec(text);
  if (env && !/^[\d*@]/.test(trimmed)) return { type: 'env', text, name: env[1]!, value: unquote(env[2]!) };
  const macro = trimmed.startsWith('@');
  const fields = macro ? 1 : 5;
  const w = words(text, fields + (userField ? 1 : 0));
  if (!w) return { type: 'unknown', text, why: 'too few fields for a cron line' };
  const timing = w.words.slice(0, fields);
  if (macro && !MACROS.includes(timing[0]!.toLowerCase()))
    return { type: 'unknown', text, why: `${timing[0]} is not a cron macro` };
  if (!macro && !timing.every((f, i) => FIELD.test(f) && inRange(f, i)))
    return { type: 'unknown', text, why: 'its time fields are not ones cron reads' };
  if (w.rest.trim() === '') return { type: 'unknown', text, why: 'no command' };
  const command = unescapePercent(w.rest);
  if (command === null)
    return {
      type: 'unknown',
      text,
      why: 'an unescaped % feeds the rest of the line to the command as input',
    };
  return {
    type: 'job',
    text,
    timing: timing.join(' '),
    user: userField ? w.words[fields]! : null,
    command,
    head: w.head,
  };
}

/** The lines of `text`; a final newline does not make an empty last line. */
export function parseCrontab(text: string, userField = false): CronLine[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines.map((l) => parseLine(l, userField));
}

/** What cron gives a job: the environment lines above it, in order (a later one wins). */
export function envBefore(lines: readonly CronLine[], index: number): Map<string, string> {
  const env = new Map<string, string>();
  for (const l of lines.slice(0, index)) if (l.type === 'env') env.set(l.name, l.value);
  return env;
}
