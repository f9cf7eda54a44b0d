/**
 * What a task search looks in, the same on every store: the name, the last error, the payload
 * (a command, its arguments, a URL), the error and output of any attempt, and the id when the
 * text is one.
 * A plain substring, case-insensitive; each store writes it in its own SQL.
 */

/** The task id a search names, when its text is a bare number (`416`, `#416`). */
export function searchedId(text: string): number | null {
  const m = /^#?(\d{1,15})$/.exec(text.trim());
  return m ? Number(m[1]) : null;
}

/** The text as a LIKE pattern matching it anywhere, its wildcards escaped with `\`. */
export const likeAnywhere = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
