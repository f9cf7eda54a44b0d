/**
 * What a stored error says went wrong, read back from its text so that failures with one cause
 * group as one: the handlers' own shapes (a shell error is the quoted command, then `exited with
 * code N: <last stderr line>`; an HTTP error is `METHOD URL -> STATUS …`) give a code, the line
 * that explains, and the command or request; that line, with what varies between runs masked
 * (numbers, ids, URLs, hosts, paths), is the signature. Pure, so the dashboard and the CLI group
 * alike.
 */
import { ellipsize } from './ellipsis.ts';

export interface FailureCause {
  /** `exit 7`, `HTTP 500`, `SIGKILL`: what ended it, where the error says; null otherwise */
  code: string | null;
  /** the line that explains it: a command's last stderr line, else the error's first line */
  line: string;
  /** the command or request that failed, when the error names it */
  command: string | null;
  /** `line` with the parts that vary between runs masked: equal signatures, one cause */
  signature: string;
}

const LINE_CHARS = 300;
/** The line of a command that failed silently: its code already says how it ended. */
const NO_OUTPUT = 'no error output';

// "CMD" exited with code N[: why]   /   "CMD" was killed by SIGNAL[: why]. CMD may span lines;
// `why` is one line (the handler keeps the last line of stderr).
const SHELL_EXIT = /^"([\s\S]*)" exited with code (-?\d+)(?:: (.*))?$/;
const SHELL_KILLED = /^"([\s\S]*)" was killed by (\S+?)(?:: (.*))?$/;
// GET https://x/y -> 500 Internal Server Error[: body]
const HTTP_STATUS = /^([A-Z]+) (\S+) -> (\d{3})\b(.*)$/;
// GET https://x/y failed: why   /   GET https://x/y: no complete response within N ms
const HTTP_FAILED = /^([A-Z]+) (\S+?)(?: failed)?: (.+)$/;

function clip(text: string): string {
  return ellipsize(text.trim(), LINE_CHARS);
}

function firstLineOf(text: string): string {
  return (
    text
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l !== '') ?? ''
  );
}

/** Masks what differs between two runs of the same failure; keeps words, quotes and codes. */
export function maskVarying(line: string): string {
  return (
    line
      .toLowerCase()
      .replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/g, '<url>')
      .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, '<id>')
      .replace(/\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b/g, '<ip>')
      // paths: /a/b, ~/a, ./a, ../a, C:\a (not the slash of "files/attrs")
      .replace(/(^|[\s"'(=:])(?:~|\.{1,2})?\/[^\s"'()]*/g, '$1<path>')
      .replace(/\b[a-z]:\\[^\s"']*/g, '<path>')
      // host names: words with a dot and a top-level part (api.vendor.test, db.internal)
      .replace(/\b(?:[a-z0-9-]+\.)+[a-z]{2,}\b/g, (h) =>
        /\.(py|js|ts|c|sh|sql|json)$/.test(h) ? h : '<host>',
      )
      .replace(/\b[0-9a-f]*\d[0-9a-f]*\b/g, (hex) => (hex.length >= 8 ? '<id>' : hex))
      // numbers, but not a code a message names (`code 2`, `status 503`): those tell causes apart
      .replace(/(\b(?:code|status|exit|http|errno)[ :=]*)?\d+(?:[.,]\d+)*/g, (m, named?: string) =>
        named ? m : '#',
      )
      .replace(/\s+/g, ' ')
      .trim()
  );
}

function cause(code: string | null, line: string, command: string | null): FailureCause {
  const shown = clip(line);
  return {
    code,
    line: shown,
    command: command === null ? null : command.trim(),
    signature: maskVarying(shown),
  };
}

export function failureCause(error: string | null): FailureCause {
  const text = (error ?? '').trim();
  if (text === '') return cause(null, 'no error message', null);
  const exit = SHELL_EXIT.exec(text);
  if (exit) return cause(`exit ${exit[2]}`, exit[3] ?? NO_OUTPUT, exit[1]!);
  const killed = SHELL_KILLED.exec(text);
  if (killed) return cause(killed[2]!, killed[3] ?? NO_OUTPUT, killed[1]!);
  const first = firstLineOf(text);
  const status = HTTP_STATUS.exec(first);
  if (status) return cause(`HTTP ${status[3]}`, `${status[3]}${status[4]}`, `${status[1]} ${status[2]}`);
  const failed = HTTP_FAILED.exec(first);
  if (failed && /^(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS)$/.test(failed[1]!))
    return cause(null, failed[3]!, `${failed[1]} ${failed[2]}`);
  return cause(null, first, null);
}

/** The key failures of one cause share: the kind, the code, and the masked line. */
export function failureKey(kind: string, c: FailureCause): string {
  return `${kind}\u0000${c.code ?? ''}\u0000${c.signature}`;
}
