/**
 * A command line with its credentials hidden, for a task's default name: names reach lists, the
 * tray, native notifications, the failure webhook and logs, so a token typed on the command line
 * must not. Pure, and only for the label: the command that runs is never changed. Where a word
 * may or may not be a secret, it is hidden (a label loses little); what it cannot see (a password
 * glued to a short option, as in `mysql -pSECRET`) it leaves.
 */

const HIDDEN = '***';

/** Names that say their value is a secret: headers, options, variables, query parameters. */
const SECRET_WORD = /token|key|secret|passw(?:or)?d|passphrase|credential|signature/i;
/** Short names that do too, but not as a variable (`PWD` is the working directory). */
const SECRET_SHORT = /^(?:sig|auth|pass|pwd)$/i;
const SECRET_HEADER = /^(?:proxy-)?authorization$|^cookie$/i;
/** Options that name a secret without holding one: where it is read from, or turning it off. */
const NOT_A_VALUE = /^no-|-(?:file|path|stdin|env|fd)$/i;

const HEADER_OPTIONS = new Set(['-H', '--header', '--proxy-header']);
const USER_OPTIONS = new Set(['-u', '--user', '-U', '--proxy-user']);

function secretOption(option: string): boolean {
  if (!option.startsWith('--')) return false;
  const name = option.slice(2);
  return (SECRET_WORD.test(name) || SECRET_SHORT.test(name)) && !NOT_A_VALUE.test(name);
}

/** `Authorization: Bearer abc` -> `Authorization: ***`; other headers as they are. */
function hideHeader(value: string): string {
  const m = /^\s*([\w-]+)\s*:/.exec(value);
  if (m && (SECRET_HEADER.test(m[1]!) || SECRET_WORD.test(m[1]!))) return `${m[1]}: ${HIDDEN}`;
  return hideInText(value);
}

/** `user:pass` -> `user:***`; a user alone (the tool asks for the password) as it is. */
function hideUserPassword(value: string): string {
  const colon = value.indexOf(':');
  return colon < 0 ? value : `${value.slice(0, colon + 1)}${HIDDEN}`;
}

/**
 * The words of a command line, each credential replaced by `***`: values of secret headers
 * (`-H 'Authorization: …'`), `-u user:pass`, `--token X` and `--password=X`, `TOKEN=…`
 * assignments, the password in `https://user:pw@host` and secret query parameters. A word that
 * is a script (`sh -c '…'`, a `--shell` command) is read as shell text.
 */
export function hideSecrets(words: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    const next = words[i + 1];
    // a script (`sh -c '…'`, a `--shell` command line) is shell text, whatever it starts with
    const script = i === 0 ? /\s/.test(word) : /^-\w*c$/.test(words[i - 1]!);
    out.push(script ? hideInText(word) : hideWord(word));
    if (next === undefined) continue;
    if (HEADER_OPTIONS.has(word)) out.push(hideHeader(next));
    else if (USER_OPTIONS.has(word)) out.push(hideUserPassword(next));
    else if (secretOption(word) && !next.startsWith('-')) out.push(HIDDEN);
    else continue;
    i++;
  }
  return out;
}

/** One word of argv: its value, when it carries one (`--header=…`, `TOKEN=…`), is all the rest. */
function hideWord(word: string): string {
  const attached = /^(--?[A-Za-z][\w-]*)=([^]*)$/.exec(word);
  if (attached) {
    const option = attached[1]!;
    const value = attached[2]!;
    if (HEADER_OPTIONS.has(option)) return `${option}=${hideHeader(value)}`;
    if (USER_OPTIONS.has(option)) return `${option}=${hideUserPassword(value)}`;
    if (secretOption(option)) return `${option}=${HIDDEN}`;
  }
  const assignment = /^([A-Za-z_]\w*)=/.exec(word);
  if (assignment && SECRET_WORD.test(assignment[1]!)) return `${assignment[0]}${HIDDEN}`;
  // a header as a word of its own (httpie: `Authorization:'Bearer …'`), or glued to -H
  const header = /^\s*([\w-]+)\s*:/.exec(word)?.[1];
  if (header !== undefined && SECRET_HEADER.test(header)) return hideHeader(word);
  if (word.startsWith('-H') && word.length > 2 && !word.startsWith('-H='))
    return `-H${hideHeader(word.slice(2))}`;
  return hideInText(word);
}

const BARE_END = /[\s'"]/g;

/** Where a value starting at `at` ends: a quoted one at its closing quote, a bare one at a space or quote. */
function valueEnd(text: string, at: number): number {
  const q = text[at];
  if (q === "'") {
    const close = text.indexOf("'", at + 1);
    return close < 0 ? text.length : close + 1;
  }
  if (q === '"') {
    for (let i = at + 1; i < text.length; i++) {
      if (text[i] === '\\') i++;
      else if (text[i] === '"') return i + 1;
    }
    return text.length;
  }
  BARE_END.lastIndex = at;
  return BARE_END.exec(text)?.index ?? text.length;
}

/** `raw` (a value as written, maybe quoted) with what is inside its quotes passed through `hide`. */
function rewriteValue(raw: string, hide: (inner: string) => string): string {
  const q = raw[0];
  if ((q === "'" || q === '"') && raw.length >= 2 && raw.endsWith(q)) return q + hide(raw.slice(1, -1)) + q;
  return hide(raw);
}

// An option or an assignment where a shell word starts (line start, space, ; & | or a parenthesis).
const OPTION = /(?<![^\s;&|(])(--?[A-Za-z][\w-]*)(=|\s+|(?=['"]))/g;
const ASSIGNMENT = /(?<![^\s;('"])([A-Za-z_]\w*)=/g;
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s/?#@:'"]*):[^\s/?#@'"]+@/gi;
const QUERY_PARAM = /([?&;])([^\s=&#'";?]+)=([^\s&#'";]+)/g;

/** Shell text (one word, or a whole script) with the credentials in it hidden. */
function hideInText(text: string): string {
  const spans: { from: number; to: number; by: string }[] = [];
  for (const m of text.matchAll(OPTION)) {
    const option = m[1]!;
    const sep = m[2]!;
    const at = m.index + m[0].length;
    if (at >= text.length || /\s/.test(text[at]!)) continue;
    const to = valueEnd(text, at);
    const raw = text.slice(at, to);
    let hide: ((inner: string) => string) | null = null;
    if (HEADER_OPTIONS.has(option)) hide = hideHeader;
    else if (USER_OPTIONS.has(option)) hide = hideUserPassword;
    else if (secretOption(option) && (sep === '=' || !raw.startsWith('-'))) hide = () => HIDDEN;
    if (hide) spans.push({ from: at, to, by: rewriteValue(raw, hide) });
  }
  for (const m of text.matchAll(ASSIGNMENT)) {
    const at = m.index + m[0].length;
    if (!SECRET_WORD.test(m[1]!) || at >= text.length || /\s/.test(text[at]!)) continue;
    const to = valueEnd(text, at);
    spans.push({ from: at, to, by: rewriteValue(text.slice(at, to), () => HIDDEN) });
  }
  let out = '';
  let last = 0;
  for (const s of spans.sort((a, b) => a.from - b.from)) {
    if (s.from < last) continue; // inside a value already hidden
    out += text.slice(last, s.from) + s.by;
    last = s.to;
  }
  out += text.slice(last);
  return out
    .replace(URL_PASSWORD, `$1:${HIDDEN}@`)
    .replace(QUERY_PARAM, (whole, sep: string, name: string) =>
      SECRET_WORD.test(name) || SECRET_SHORT.test(name) ? `${sep}${name}=${HIDDEN}` : whole,
    );
}
