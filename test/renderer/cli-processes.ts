/**
 * The real `semaforo` CLI in child processes for the dashboard's e2e tests (serve, work, enqueue,
 * …) on temp databases, each tracked so the suite stops them all at its end. Kept apart from
 * test/helpers.ts, whose afterEach clean-up would tear down the server and the temp folder a
 * suite shares across the tests of one file.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { outputOf, type ProcessOutput } from '../process-output.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(ROOT, 'bin/semaforo.js');

const children = new Set<ChildProcess>();
const dirs: string[] = [];

export function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'semaforo-e2e-'));
  dirs.push(dir);
  return dir;
}

/** A queue file's folder is its home; a PostgreSQL queue gets a temp folder of its own. */
const homes = new Map<string, string>();
function env(db: string): NodeJS.ProcessEnv {
  let home = homes.get(db);
  if (!home) homes.set(db, (home = /^postgres(ql)?:\/\//i.test(db) ? tempDir() : path.dirname(db)));
  return { ...process.env, SEMAFORO_HOME: home, SEMAFORO_DB: db, NO_COLOR: '1' };
}

type CliResult = ProcessOutput;

/** `semaforo --db DB ARGS` in its own process, as a script or cron job would run it. */
export function semaforo(db: string, args: readonly string[], stdin = ''): Promise<CliResult> {
  const child = spawn(process.execPath, [BIN, '--db', db, ...args], { env: env(db), stdio: 'pipe' });
  return outputOf(child, stdin);
}

/** Like `semaforo`, but fails the test when the command does, and parses `--json` output. */
export async function semaforoJson<T>(db: string, args: readonly string[], stdin = ''): Promise<T> {
  const r = await semaforo(db, ['--json', ...args], stdin);
  if (r.code !== 0) throw new Error(`semaforo ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

/** Enqueues task specs in one `enqueue --stdin` transaction; returns their ids. */
export async function enqueueMany(db: string, specs: readonly object[]): Promise<number[]> {
  const tasks = await semaforoJson<{ id: number }[]>(
    db,
    ['enqueue', '--stdin'],
    specs.map((s) => JSON.stringify(s)).join('\n'),
  );
  return tasks.map((t) => t.id);
}

function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

export interface Served {
  db: string;
  /** http://127.0.0.1:PORT */
  origin: string;
  dashboardUrl: string;
  token: string;
  stderr(): string;
  stop(): Promise<void>;
}

/** `semaforo serve --port 0` on `db`; resolves once it printed its Dashboard line. */
export async function serve(db: string, extra: readonly string[] = []): Promise<Served> {
  const child = track(
    spawn(process.execPath, [BIN, '--db', db, 'serve', '--port', '0', ...extra], { env: env(db) }),
  );
  let stderr = '';
  child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
  const lines = createInterface({ input: child.stdout! });
  const first = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`serve printed nothing in 15 s; stderr: ${stderr}`)),
      15_000,
    );
    lines.once('line', (line) => {
      clearTimeout(timer);
      resolve(line);
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
  });
  const m = /^Dashboard: (http:\/\/[^/]+)\/#token=([A-Za-z0-9_-]+)$/.exec(first);
  if (!m) throw new Error(`unexpected first line from serve: ${first}`);
  return {
    db,
    origin: m[1]!,
    token: m[2]!,
    dashboardUrl: `${m[1]}/#token=${m[2]}`,
    stderr: () => stderr,
    stop: () => stopChild(child),
  };
}

/** `semaforo work` on `db` until stopped. */
export function work(db: string): { stop(): Promise<void> } {
  const child = track(spawn(process.execPath, [BIN, '--db', db, 'work'], { env: env(db), stdio: 'ignore' }));
  return { stop: () => stopChild(child) };
}

export async function cleanUp(): Promise<void> {
  await Promise.all([...children].map(stopChild));
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
}
