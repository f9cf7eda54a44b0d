/**
 * A PostgreSQL queue's location: `postgres://user[:password]@host[:port]/db?schema=NAME`. The
 * schema (default `semaforo`) lets several queues share one database; it is validated here once,
 * so it can be used as a bare identifier (search_path, channel names) everywhere else.
 */
import os from 'node:os';
import { RESERVED_WORDS } from './pg-keywords.ts';

export interface PgLocation {
  /** what the client connects with (the password included, the schema option removed) */
  connectionString: string;
  schema: string;
  /** shown to people and in errors: the URL without its password */
  display: string;
}

export const DEFAULT_SCHEMA = 'semaforo';

/**
 * Lower-case identifiers only: PostgreSQL folds unquoted names, and these are used unquoted. At
 * most 54 characters: the queue's NOTIFY channel `semaforo.<schema>` must fit PostgreSQL's
 * 63-byte names, or every write fails.
 */
const SCHEMA_RE = /^[a-z_][a-z0-9_]{0,53}$/;

export function isPgUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/** Parses a queue URL; throws an Error naming the bad part. */
export function parsePgLocation(location: string): PgLocation {
  let url: URL;
  try {
    url = new URL(location);
  } catch {
    throw new Error(`invalid PostgreSQL URL: ${redact(location)}`);
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')
    throw new Error(`invalid PostgreSQL URL: expected postgres://, got ${url.protocol}//`);
  const schema = url.searchParams.get('schema') ?? DEFAULT_SCHEMA;
  checkSchema(schema);
  url.searchParams.delete('schema');
  const connectionString = withUser(url).toString();
  // Shown without its password, nor any query option (password=, sslpassword=, sslkey= may be
  // secrets): the schema alone says which queue.
  const shown = new URL(url.toString());
  shown.password = '';
  shown.search = '';
  if (schema !== DEFAULT_SCHEMA) shown.searchParams.set('schema', schema);
  return { connectionString, schema, display: shown.toString() };
}

/**
 * A URL without a user connects as PGUSER or else the OS account, as psql does: `pg` falls back
 * to $USER only, which cron, systemd units and containers often leave unset.
 */
function withUser(url: URL): URL {
  if (url.username) return url;
  const user = process.env.PGUSER || osUser();
  if (!user) return url;
  const out = new URL(url.toString());
  out.username = encodeURIComponent(user);
  return out;
}

function osUser(): string | null {
  try {
    return os.userInfo().username || null;
  } catch {
    return null; // no passwd entry for this uid (some containers)
  }
}

function checkSchema(schema: string): void {
  if (!SCHEMA_RE.test(schema))
    throw new Error(
      `invalid schema "${schema}" in the PostgreSQL URL: use lower-case letters, digits and _ (at most 54)`,
    );
  if (RESERVED_WORDS.has(schema))
    throw new Error(
      `invalid schema "${schema}" in the PostgreSQL URL: a reserved SQL word, choose another name`,
    );
  if (schema.startsWith('pg_'))
    throw new Error(`invalid schema "${schema}" in the PostgreSQL URL: pg_ names are PostgreSQL's own`);
}

/** A URL-ish text without its user info (everything between `//` and the last `@`) nor query. */
function redact(text: string): string {
  const at = text.lastIndexOf('@');
  const start = text.indexOf('//');
  const bare = start >= 0 && at > start ? `${text.slice(0, start + 2)}…${text.slice(at)}` : text;
  const q = bare.indexOf('?');
  return q >= 0 ? `${bare.slice(0, q)}?…` : bare;
}
