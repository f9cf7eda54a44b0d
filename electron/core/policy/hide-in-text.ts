/**
 * Credentials hidden in shell text: a `sh -c '…'` or `--shell` script, or one word of argv read
 * as one. Options and their values are found by pattern, not by a shell parser, so the matches
 * err towards hiding (see hide-secrets.ts).
 */
import {
  HIDDEN,
  isSecretHeader,
  isSecretParam,
  isSecretVariable,
  optionKind,
  programName,
  type ValueKind,
} from './secret-names.ts';

/** `Authorization: Bearer abc` -> `Authorization: ***`; other headers as they are. */
export function hideHeader(value: string): string {
  const m = /^\s*([\w-]+)\s*:([^]*)$/.exec(value);
  if (m && isSecretHeader(m[1]!, m[2]!)) return `${m[1]}: ${HIDDEN}`;
  return hideInText(value);
}

/** `user:pass` -> `user:***`; a user alone (the tool asks for the password) as it is. */
export function hideUserPassword(value: string): string {
  const colon = value.indexOf(':');
  return colon < 0 ? value : `${value.slice(0, colon + 1)}${HIDDEN}`;
}

export function hideValue(kind: ValueKind, value: string): string {
  if (kind === 'header') return hideHeader(value);
  if (kind === 'user') return hideUserPassword(value);
  return HIDDEN;
}

const BARE_END = /[\s'";&|<>]/g;

/**
 * Where a value starting at `at` ends: a quoted one at its closing quote, a bare one where the
 * shell would end the word (a space, a quote, ; & | < >).
 */
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

/** The programs named in the command that `at` is part of: the words since the last ; & | ( or newline. */
function programsAt(text: string, at: number): Set<string> {
  const start = Math.max(...[';', '&', '|', '(', '\n'].map((c) => text.lastIndexOf(c, at - 1))) + 1;
  const words = text.slice(start, at).split(/\s+/);
  return new Set(words.filter((w) => w !== '' && !w.startsWith('-')).map(programName));
}

// Where a shell word starts: line start, space, ; & | or a parenthesis.
const WORD_START = String.raw`(?<![^\s;&|(])`;
// An option and how its value follows: after =, after spaces, or quoted right on it.
const OPTION = new RegExp(String.raw`${WORD_START}(--?[A-Za-z][\w-]*)(=|\s+|(?=['"]))`, 'g');
// A short option with its value glued on (`-uuser:pw`, `-HAuthorization:x`, `-bSESSION=x`).
const GLUED = new RegExp(String.raw`${WORD_START}(-[A-Za-z])(?=[^\s'"=])`, 'g');
// `NAME=…`, also as an option's value (`-eAPI_TOKEN=x`, `--env=API_TOKEN=x`, `-Ddb.password=x`).
const ASSIGNMENT = /(?<![^\s;('"=])(?:-[A-Za-z])?([A-Za-z_][\w.]*)=(?!=)/g;
// httpie's query parameter `token==abc`
const PARAM_WORD = new RegExp(String.raw`${WORD_START}([\w-]+)==`, 'g');
// git's `-c http.extraHeader=…` or `git config http.extraHeader '…'`
const EXTRA_HEADER = /(?<![^\s;('"=])([\w.-]*\.extraheader)(=|\s+)/gi;
// httpie's `Name:value` as a word of its own, quoted or not
const HEADER_WORD = new RegExp(String.raw`${WORD_START}(['"]?)([A-Za-z][\w-]*):(?!//)`, 'g');
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s/?#@:'"]*):[^\s/?#@'"]+@/gi;
// userinfo without a password is often a token itself (`https://ghp_…@github.com`)
const URL_USER = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@:'"]+@/gi;
const QUERY_PARAM = /([?&;#])([^\s=&#'";?]+)=([^\s&#'";]+)/g;

interface Span {
  from: number;
  to: number;
  by: string;
}

/** A span hiding the value that starts at `at`, if there is one there. */
function valueSpan(text: string, at: number, hide: (inner: string) => string): Span | null {
  if (at >= text.length || /\s/.test(text[at]!)) return null;
  const to = valueEnd(text, at);
  return { from: at, to, by: rewriteValue(text.slice(at, to), hide) };
}

function findSpans(text: string): Span[] {
  const spans: (Span | null)[] = [];
  for (const m of text.matchAll(OPTION)) {
    const at = m.index + m[0].length;
    const kind = optionKind(m[1]!, programsAt(text, m.index), false);
    // `--token -v`: the token is read elsewhere; `--token=-x` is a value
    if (kind === null || (kind === 'secret' && m[2] !== '=' && text[at] === '-')) continue;
    spans.push(valueSpan(text, at, (v) => hideValue(kind, v)));
  }
  for (const m of text.matchAll(GLUED)) {
    const kind = optionKind(m[1]!, programsAt(text, m.index), true);
    if (kind !== null) spans.push(valueSpan(text, m.index + 2, (v) => hideValue(kind, v)));
  }
  for (const m of text.matchAll(ASSIGNMENT)) {
    if (isSecretVariable(m[1]!)) spans.push(valueSpan(text, m.index + m[0].length, () => HIDDEN));
  }
  for (const m of text.matchAll(PARAM_WORD)) {
    if (isSecretParam(m[1]!)) spans.push(valueSpan(text, m.index + m[0].length, () => HIDDEN));
  }
  for (const m of text.matchAll(EXTRA_HEADER)) spans.push(valueSpan(text, m.index + m[0].length, hideHeader));
  for (const m of text.matchAll(HEADER_WORD)) {
    const name = m[2]!;
    const at = m.index + m[0].length;
    if (m[1] !== '') {
      // quoted: the value runs to the closing quote, spaces and all
      const close = valueEnd(text, m.index) - 1;
      if (isSecretHeader(name, text.slice(at, close))) spans.push({ from: at, to: close, by: ` ${HIDDEN}` });
    } else if (isSecretHeader(name, text.slice(at, valueEnd(text, at)).replace(/^['"]/, ''))) {
      spans.push(valueSpan(text, at, () => HIDDEN));
    }
  }
  return spans.filter((s): s is Span => s !== null).sort((a, b) => a.from - b.from);
}

/** Shell text (one word, or a whole script) with the credentials in it hidden. */
export function hideInText(text: string): string {
  let out = '';
  let last = 0;
  for (const s of findSpans(text)) {
    if (s.from < last) continue; // inside a value already hidden
    out += text.slice(last, s.from) + s.by;
    last = s.to;
  }
  out += text.slice(last);
  return out
    .replace(URL_PASSWORD, `$1:${HIDDEN}@`)
    .replace(URL_USER, `$1${HIDDEN}@`)
    .replace(QUERY_PARAM, (whole, sep: string, name: string) =>
      isSecretParam(name) ? `${sep}${name}=${HIDDEN}` : whole,
    );
}
