/**
 * Text from the queue (task names, commands, errors, output) made safe for a terminal: control
 * characters other than newline and tab, and the Unicode ones that reorder text, are shown as
 * escapes. A task's output could otherwise move the cursor, retitle the window, hide lines or
 * rewrite what `list` and `show` print. JSON output escapes them already.
 */
// C0 except \t and \n, DEL, C1, and the bidirectional overrides and isolates.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export function printable(text: string): string {
  return text.replace(UNSAFE, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`;
  });
}
