/**
 * Which store a queue is on, as every face shows it: the SQLite file's path, or the PostgreSQL
 * server, database and schema. `location` is the store's own, already without a password.
 */
export type QueueBackend = 'sqlite' | 'postgres';

export interface QueueInfo {
  backend: QueueBackend;
  /** a file path, or a postgres:// URL without its password */
  location: string;
}

export const backendOf = (location: string): QueueBackend =>
  /^postgres(ql)?:\/\//i.test(location) ? 'postgres' : 'sqlite';

/** One short line: "SQLite file /home/ana/.semaforo/queue.db", "PostgreSQL db.lan:5432/jobs (schema ops)". */
export function describeQueue(info: QueueInfo, home?: string): string {
  if (info.backend === 'sqlite') {
    const shown =
      home && info.location.startsWith(`${home}/`) ? `~${info.location.slice(home.length)}` : info.location;
    return `SQLite file ${shown}`;
  }
  let u: URL;
  try {
    u = new URL(info.location);
  } catch {
    return `PostgreSQL ${info.location}`;
  }
  const schema = u.searchParams.get('schema');
  const user = u.username ? `${decodeURIComponent(u.username)}@` : '';
  return `PostgreSQL ${user}${u.host}${u.pathname}${schema ? ` (schema ${schema})` : ''}`;
}

/** Why a PostgreSQL queue has no durability setting of its own (SQLite's setting). */
export const PG_DURABILITY =
  "this queue is on PostgreSQL, where a commit waits as the server's synchronous_commit says";
