/**
 * PostgreSQL 15's reserved key words (pg_get_keywords() catcode R and T): these cannot name a
 * schema written bare, as the store writes the queue's schema (location.ts refuses them).
 */
export const RESERVED_WORDS: ReadonlySet<string> = new Set(
  [
    'all analyse analyze and any array as asc asymmetric authorization binary both case cast check',
    'collate collation column concurrently constraint create cross current_catalog current_date',
    'current_role current_schema current_time current_timestamp current_user default deferrable desc',
    'distinct do else end except false fetch for foreign freeze from full grant group having ilike in',
    'initially inner intersect into is isnull join lateral leading left like limit localtime',
    'localtimestamp natural not notnull null offset on only or order outer overlaps placing primary',
    'references returning right select session_user similar some symmetric table tablesample then to',
    'trailing true union unique user using variadic verbose when where window with',
  ]
    .join(' ')
    .split(' '),
);
