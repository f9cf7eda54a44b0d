/**
 * Error messages quote what the user gave ("--priority: "abc" is not a number"). A value of
 * 100 KB (a pasted file, a runaway variable) must not come back whole: a quoted value is cut to
 * its start and its length, and a whole message to a length a terminal line or a log can hold.
 */
const QUOTED_MAX = 80;
const QUOTED_KEEP = 60;
const MESSAGE_MAX = 1000;

const QUOTED = new RegExp(`"([^"]{${QUOTED_MAX + 1},})"|'([^']{${QUOTED_MAX + 1},})'`, 'g');

function cut(value: string, quote: string): string {
  return `${quote}${value.slice(0, QUOTED_KEEP)}…${quote} (${value.length} characters)`;
}

/** `text` with long quoted values shortened and the whole bounded. */
export function boundEchoes(text: string): string {
  const short = text.replace(QUOTED, (_m, dq: string | undefined, sq: string | undefined) =>
    dq !== undefined ? cut(dq, '"') : cut(sq ?? '', "'"),
  );
  if (short.length <= MESSAGE_MAX) return short;
  return `${short.slice(0, MESSAGE_MAX - 40)}… (${short.length} characters in all)`;
}
