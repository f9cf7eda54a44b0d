/**
 * A command line with its credentials hidden, for a task's default name and a failed command's
 * error: those reach lists, the tray, native notifications, the failure webhook and logs, so a
 * token typed on the command line must not. Pure, and only for the label: the command that runs
 * is never changed. Where a word may or may not be a secret, it is hidden (a label loses little).
 */
import { hideHeader, hideInText, hideValue } from './hide-in-text.ts';
import {
  HIDDEN,
  isSecretHeader,
  isSecretParam,
  isSecretVariable,
  optionKind,
  programName,
  type Programs,
  type ValueKind,
} from './secret-names.ts';

/** git's `http.extraHeader` (`git config http.extraHeader 'Authorization: …'`) */
const EXTRA_HEADER_KEY = /\.extraheader$/i;

/** What the word after `word` is, when it is an option's credential. */
function nextKind(word: string, programs: Programs): ValueKind | null {
  // `--password=X` holds its value: the next word is not it
  if (word.includes('=')) return null;
  if (EXTRA_HEADER_KEY.test(word)) return 'header';
  return optionKind(word, programs, false);
}

/**
 * The words of a command line, each credential replaced by `***`: values of secret headers
 * (`-H 'Authorization: …'`, a `Bearer …` value, httpie's `X-Api-Key:…`), `-u user:pass`,
 * `--token X` and `--password=X`, curl's cookies, `docker login -p`, `sshpass -p`,
 * `TOKEN=…` assignments (`-e`, `--env` too), passwords and tokens in URLs and secret query
 * parameters. A word that is a script (`sh -c '…'`, a `--shell` command) is read as shell text.
 */
export function hideSecrets(words: readonly string[]): string[] {
  const out: string[] = [];
  const programs = new Set<string>();
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    const next = words[i + 1];
    // a script (`sh -c '…'`, a `--shell` command line) is shell text, whatever it starts with;
    // git's -c takes a setting, not a script
    const script = i === 0 ? /\s/.test(word) : /^-\w*c$/.test(words[i - 1]!) && !programs.has('git');
    out.push(script ? hideInText(word) : hideWord(word, programs));
    if (!word.startsWith('-') && !script) programs.add(programName(word));
    const kind = next === undefined ? null : nextKind(word, programs);
    if (next === undefined || kind === null || (kind === 'secret' && next.startsWith('-'))) continue;
    out.push(hideValue(kind, next));
    i++;
  }
  return out;
}

/** One word of argv: its value, when it carries one (`--header=…`, `TOKEN=…`), is all the rest. */
function hideWord(word: string, programs: Programs): string {
  // a short option with its value glued on: `-uuser:pw`, `-HAuthorization:x`, `-eAPI_TOKEN=x`
  const glued = /^(-[A-Za-z])([^=][^]*)$/.exec(word);
  if (glued) {
    const [, option, value] = glued as unknown as [string, string, string];
    const kind = optionKind(option, programs, true);
    if (kind !== null) return option + hideValue(kind, value);
    const assignment = hideAssignment(value);
    if (assignment !== null) return option + assignment;
  }
  const attached = /^(--?[A-Za-z][\w-]*)=([^]*)$/.exec(word);
  if (attached) {
    const [, option, value] = attached as unknown as [string, string, string];
    const kind = optionKind(option, programs, false);
    if (kind !== null) return `${option}=${hideValue(kind, value)}`;
    const assignment = hideAssignment(value);
    if (assignment !== null) return `${option}=${assignment}`;
  }
  const config = /^([\w.-]+)=([^]*)$/.exec(word);
  if (config && EXTRA_HEADER_KEY.test(config[1]!)) return `${config[1]}=${hideHeader(config[2]!)}`;
  // httpie's query parameter `token==abc`, before it reads as `token=…`
  const param = /^([\w-]+)==/.exec(word);
  if (param && isSecretParam(param[1]!)) return `${param[0]}${HIDDEN}`;
  const assignment = hideAssignment(word);
  if (assignment !== null) return assignment;
  // httpie's header `Authorization:'Bearer …'`
  const header = /^\s*([\w-]+)\s*:([^]*)$/.exec(word);
  if (header && !header[2]!.startsWith('//') && isSecretHeader(header[1]!, header[2]!))
    return hideHeader(word);
  return hideInText(word);
}

/** `API_TOKEN=abc` -> `API_TOKEN=***`; null when the word is no such assignment. */
function hideAssignment(word: string): string | null {
  const m = /^([A-Za-z_][\w.]*)=/.exec(word);
  return m && isSecretVariable(m[1]!) ? `${m[0]}${HIDDEN}` : null;
}
