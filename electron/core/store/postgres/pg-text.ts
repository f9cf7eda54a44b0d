/**
 * Text as PostgreSQL can hold it. Its text type cannot hold U+0000 (SQLite's can), and a lone
 * surrogate is no UTF-8: either would fail the whole statement, and with it every finish of a
 * tick on every turn (a shell task whose output has a NUL byte). Both become U+FFFD, as they do
 * on their way into SQLite (a lone surrogate) and in `semaforo migrate` (a NUL).
 */
export function pgText(s: string): string {
  const w = s.toWellFormed();
  return w.includes('\0') ? w.replaceAll('\0', '\uFFFD') : w;
}

export function pgTextOrNull(s: string | null | undefined): string | null {
  return s === null || s === undefined ? null : pgText(s);
}
