/**
 * Which group a cron job's command belongs in, guessed from what it calls: jobs hitting one
 * host share that vendor's group (its rate limits), backup tools share `backups` with one at a
 * time (two dumps at once thrash the same disk). A guess, written into an editable plan.
 */

export interface GroupGuess {
  group: string;
  /** the proposed limit for a group adopt creates */
  concurrency: number;
  why: string;
}

const BACKUP_TOOLS = new Set([
  'pg_dump',
  'pg_dumpall',
  'mysqldump',
  'mariadb-dump',
  'rsync',
  'restic',
  'borg',
  'tar',
]);
const URL = /\bhttps?:\/\/([A-Za-z0-9.-]+)/;

/** Commands that run the next word (their options skipped, with the value of those that take one). */
const WRAPPERS: Record<string, readonly string[]> = {
  sudo: ['-u', '-g'],
  nice: ['-n'],
  ionice: ['-c', '-n'],
  flock: ['-w', '-E'],
  timeout: ['-s', '-k'],
  exec: [],
  env: [],
  time: [],
  chronic: [],
  nohup: [],
};

/** The program each simple command of a shell line runs (after `|`, `&&`, `;`, `sudo`, ...). */
export function commandWords(command: string): string[] {
  return command
    .split(/\|\||&&|[|;&()]/)
    .map((part) => {
      const ws = part.trim().split(/\s+/);
      let i = 0;
      const base = (w: string | undefined) => (w ?? '').split('/').pop()!;
      for (;;) {
        while (/^[A-Za-z_][A-Za-z0-9_]*=/.test(ws[i] ?? '')) i++;
        const w = base(ws[i]);
        const valueFlags = WRAPPERS[w];
        if (!valueFlags) break;
        i++;
        while (ws[i]?.startsWith('-')) i += valueFlags.includes(ws[i]!) ? 2 : 1;
        if (w === 'timeout' && /^\d/.test(ws[i] ?? '')) i++; // its duration
        if (w === 'flock' && ws[i]) i++; // its lock file
      }
      return base(ws[i]);
    })
    .filter(Boolean);
}

/** A group name from a host: `api.example.com` -> `example.com`, as names allow. */
export function vendorGroup(host: string): string {
  const labels = host.toLowerCase().replace(/\.$/, '').split('.');
  const base = /^\d+$/.test(labels.at(-1) ?? '') ? labels.join('.') : labels.slice(-2).join('.');
  return (
    base
      .replace(/[^a-z0-9._-]/g, '-')
      .replace(/^[^a-z0-9]+/, '')
      .slice(0, 64) || 'vendor'
  );
}

export function guessGroup(command: string): GroupGuess | null {
  const tools = commandWords(command);
  const backup = tools.find((t) => BACKUP_TOOLS.has(t) || (t === 'sqlite3' && /\.backup\b/.test(command)));
  if (backup) return { group: 'backups', concurrency: 1, why: `backup tool ${backup}: one at a time` };
  const url = URL.exec(command);
  if (url) {
    const group = vendorGroup(url[1]!);
    return { group, concurrency: 1, why: `calls ${url[1]}: one vendor, one lane` };
  }
  return null;
}

/** A task name for the job: its first tool, made unique among `taken`. */
export function jobName(command: string, taken: Set<string>): string {
  const first = commandWords(command)[0] ?? 'job';
  const base =
    first
      .replace(/\.(sh|py|rb|pl|js)$/, '')
      .replace(/[^A-Za-z0-9._:-]/g, '-')
      .replace(/^[^A-Za-z0-9]+/, '')
      .slice(0, 56) || 'job';
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base}-${n}`;
  taken.add(name);
  return name;
}
